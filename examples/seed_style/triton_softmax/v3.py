"""Triton row softmax, version 3: v2's multi-row tile with rows per program and num_warps
autotuned.

input and output are (N, D) float32, row-major. Same kernel body as v2, but @triton.autotune
tries every (ROWS, num_warps) pair in CONFIGS on the first call for each (N, D) and keeps the
fastest; configs whose tile would be too large (ROWS * BLOCK > 8192 values) are pruned. Every
config writes the whole output, so the autotuning runs (kprof's warm-up) leave it correct.
Run: kprof check examples/seed_style/triton_softmax/v3.py --ref examples/seed_style/triton_softmax/ref.py --N=32768 --D=1024
"""
import torch
import triton
import triton.language as tl

MAX_D = 16384
MAX_TILE = 8192  # values per program a config may hold (ROWS * next_power_of_2(D))
CONFIGS = [triton.Config({"ROWS": r}, num_warps=w) for r in (1, 2, 4, 8) for w in (4, 8, 16)]


def _prune(configs, named_args, **kwargs):
    """Keeps the configs whose (ROWS, next_power_of_2(D)) tile holds at most MAX_TILE values."""
    block = triton.next_power_of_2(named_args["D"])
    kept = [c for c in configs if c.kwargs["ROWS"] * block <= MAX_TILE]
    return kept or [c for c in configs if c.kwargs["ROWS"] == 1]


@triton.autotune(configs=CONFIGS, key=["N", "D"], prune_configs_by={"early_config_prune": _prune})
@triton.jit
def softmax_v3(in_ptr, out_ptr, N, D, stride_in, stride_out, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < N) & (cols[None, :] < D)
    x = tl.load(in_ptr + rows[:, None] * stride_in + cols[None, :], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(x)
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_out + cols[None, :], y, mask=mask)


def setup(N, D, seed=0, **kwargs):
    """input ~ normal(0, 1), shape (N, D), and an empty output of the same shape; float32."""
    N, D = int(N), int(D)
    if N <= 0 or D <= 0 or D > MAX_D:
        raise ValueError(f"need N > 0 and 0 < D <= {MAX_D}, got N={N} D={D}")
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    input = torch.randn((N, D), generator=g, device="cuda", dtype=torch.float32)
    output = torch.empty((N, D), device="cuda", dtype=torch.float32)
    return {"inputs": {"input": input, "output": output, "N": N, "D": D}, "outputs": ["output"]}


def run_kernel(input, output, N, D, **kwargs):
    """Autotuned on the first call per (N, D); does not synchronize."""
    grid = lambda meta: (triton.cdiv(N, meta["ROWS"]),)
    softmax_v3[grid](input, output, N, D, input.stride(0), output.stride(0), BLOCK=triton.next_power_of_2(D))
