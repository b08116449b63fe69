"""CuTe DSL elementwise add: c = a + b over (M, N) row-major float32 tensors.

Written with `cutlass.cute` (nvidia-cutlass-dsl 4.x, tested against the 4.8 API), after NVIDIA's
examples/python/CuTeDSL/ampere/elementwise_add.py:
  - a block of 128 threads laid out (4, 32) row-major, each thread owning a (4, 4) patch whose 4
    contiguous values in a row can form one 128-bit access: one block covers a (16, 128) tile;
  - cute.zipped_divide splits each tensor into such tiles, block b takes tile b (grid = #tiles);
  - when the tiles do not cover (M, N) exactly, an identity (coordinate) tensor tiled the same
    way gives each value its (row, col) and cute.elem_less(coord, shape) predicates every copy,
    so any M and N work (those copies are 32-bit); when M % 16 == 0 and N % 128 == 0 the copies
    are unpredicated and compile to 128-bit ld/st.global.v4 (checked in the generated PTX).
The host function is compiled once per (shape, dtype) with cute.compile and cached in _COMPILED;
setup() compiles it for its tensors, so run_kernel() only converts the tensors (from_dlpack) and
launches on PyTorch's current stream (the default stream unless the caller set another).
Run (kprof must be told the implementation, a .py defaults to triton):
  kprof check examples/cute_dsl/elementwise_add/elementwise_add.py --implementation cute-dsl \
      --ref examples/cute_dsl/elementwise_add/ref.py --M=1000 --N=1000
"""
import cuda.bindings.driver as cuda
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

DEVICE = "cuda"  # where setup() allocates (a test may point it elsewhere)
_COMPILED = {}   # (shape, dtype) -> compiled host function


@cute.kernel
def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor, cC: cute.Tensor,
               shape: cute.Shape, thr_layout: cute.Layout, val_layout: cute.Layout,
               need_pred: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()

    # This block's tile of each tensor (and of the coordinates): ((TileM, TileN), tile index).
    blk = ((None, None), bidx)
    blkA, blkB, blkC, blkCrd = gA[blk], gB[blk], gC[blk], cC[blk]

    # Thread-level partition of the tile with a tiled copy built from the TV layouts.
    load_atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), gA.element_type)
    store_atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), gC.element_type)
    thr_load = cute.make_tiled_copy_tv(load_atom, thr_layout, val_layout).get_slice(tidx)
    thr_store = cute.make_tiled_copy_tv(store_atom, thr_layout, val_layout).get_slice(tidx)
    thrA = thr_load.partition_S(blkA)
    thrB = thr_load.partition_S(blkB)
    thrC = thr_store.partition_S(blkC)
    thrCrd = thr_store.partition_S(blkCrd)

    frgA = cute.make_fragment_like(thrA)
    frgB = cute.make_fragment_like(thrB)
    frgC = cute.make_fragment_like(thrC)
    if cutlass.const_expr(need_pred):
        # Predicate: true where this thread's value lies inside (M, N). Masked-off values are
        # neither read nor written. (Per-value predicates keep the accesses 32-bit.)
        pred = cute.make_rmem_tensor(thrCrd.shape, cutlass.Boolean)
        for i in range(0, cute.size(pred), 1):
            pred[i] = cute.elem_less(thrCrd[i], shape)
        cute.copy(load_atom, thrA, frgA, pred=pred)
        cute.copy(load_atom, thrB, frgB, pred=pred)
        frgC.store(frgA.load() + frgB.load())
        cute.copy(store_atom, frgC, thrC, pred=pred)
    else:
        # The tiles cover (M, N) exactly: no predicate, 128-bit loads and stores.
        cute.copy(load_atom, thrA, frgA)
        cute.copy(load_atom, thrB, frgB)
        frgC.store(frgA.load() + frgB.load())
        cute.copy(store_atom, frgC, thrC)


@cute.jit
def elementwise_add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, stream: cuda.CUstream):
    vector = 128 // mA.element_type.width  # values per 128-bit access (4 for float32)
    thr_layout = cute.make_ordered_layout((4, 32), order=(1, 0))
    val_layout = cute.make_ordered_layout((4, vector), order=(1, 0))
    tiler_mn, tv_layout = cute.make_layout_tv(thr_layout, val_layout)

    gA = cute.zipped_divide(mA, tiler_mn)  # ((TileM, TileN), (RestM, RestN))
    gB = cute.zipped_divide(mB, tiler_mn)
    gC = cute.zipped_divide(mC, tiler_mn)
    cC = cute.zipped_divide(cute.make_identity_tensor(mC.shape), tiler=tiler_mn)

    # The shapes are static (compiled per shape), so this is decided at compile time.
    need_pred = (mC.shape[0] % tiler_mn[0] != 0) or (mC.shape[1] % tiler_mn[1] != 0)
    add_kernel(gA, gB, gC, cC, mC.shape, thr_layout, val_layout, need_pred).launch(
        grid=[cute.size(gC, mode=[1]), 1, 1],
        block=[cute.size(tv_layout, mode=[0]), 1, 1],
        stream=stream,
    )


def _as_cute(t):
    """A CuTe view of a contiguous torch tensor; torch's allocations are at least 16-byte
    aligned, which lets the copies use 128-bit accesses where the layout allows."""
    return from_dlpack(t, assumed_align=16)


def _current_stream():
    return cuda.CUstream(torch.cuda.current_stream().cuda_stream)


def _compiled_for(ta, tb, tc, stream, key):
    """The compiled elementwise_add for this (shape, dtype), compiling it on first use."""
    fn = _COMPILED.get(key)
    if fn is None:
        fn = cute.compile(elementwise_add, ta, tb, tc, stream)
        _COMPILED[key] = fn
    return fn


def setup(M, N, seed=0, **kwargs):
    """a, b ~ normal(0, 1) and the output c, each (M, N) float32; compiles the kernel for them."""
    M, N = int(M), int(N)
    if M <= 0 or N <= 0:
        raise ValueError(f"--M and --N must be positive, got M={M} N={N}")
    g = torch.Generator(device=DEVICE).manual_seed(int(seed))
    a = torch.randn(M, N, generator=g, device=DEVICE, dtype=torch.float32)
    b = torch.randn(M, N, generator=g, device=DEVICE, dtype=torch.float32)
    c = torch.empty(M, N, device=DEVICE, dtype=torch.float32)
    _compiled_for(_as_cute(a), _as_cute(b), _as_cute(c), _current_stream(), (M, N, c.dtype))
    return {"inputs": {"a": a, "b": b, "c": c, "M": M, "N": N}, "outputs": ["c"]}


def run_kernel(a, b, c, M, N, **kwargs):
    """Launches the compiled kernel on the current stream; does not synchronize."""
    stream = _current_stream()
    ta, tb, tc = _as_cute(a), _as_cute(b), _as_cute(c)
    _compiled_for(ta, tb, tc, stream, (M, N, c.dtype))(ta, tb, tc, stream)
