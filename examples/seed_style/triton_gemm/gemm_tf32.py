"""Triton GEMM in TF32: the kernel of v1.py run with tl.dot(..., input_precision="tf32").

C (M, N) = A (M, K) @ B (K, N), float32 in memory, but every A and B element is rounded to
TF32 (10 mantissa bits, unit roundoff 2^-11) before the tensor cores multiply them; the sums
stay float32. The H200's TF32 tensor-core peak is ~7x its float32 FMA peak (v1.py's path),
and TF32 is Triton's default for a float32 tl.dot on Ampere and newer: a GEMM written without
input_precision computes this way.
The result is NOT float32-accurate: at M = N = K = 4096 with normal(0, 1) inputs (|C| ~ 64)
the errors are ~0.02 RMS, up to ~0.1-0.3, on most elements: `kprof check` against ref.py
fails (exit 1), and kprof says the error pattern is consistent with TF32 / float16 inputs and
prints the --atol / --rtol that would accept it (if TF32 is a deliberate choice).
Check: kprof check examples/seed_style/triton_gemm/gemm_tf32.py --ref examples/seed_style/triton_gemm/ref.py --M=4096 --K=4096 --N=4096
"""
import v1  # kprof puts this file's folder first on sys.path

setup = v1.setup  # the same A (M, K), B (K, N), C (M, N), float32


def run_kernel(A, B, C, M, N, K, **kwargs):
    """v1's grouped 128 x 128 tiles, but TF32 inputs on the tensor cores; does not synchronize."""
    v1.run_kernel(A, B, C, M, N, K, precision="tf32")
