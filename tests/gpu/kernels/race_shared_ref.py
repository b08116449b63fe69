"""Reference for tests/gpu/kernels/race_shared.cu: solve(const float* x, float* y, int n).

y = x with every block of 256 floats reversed (n a multiple of 256). kprof passes x and y as flat
float32 CUDA tensors of n elements and n as an int. A copy: exact.
"""

atol = 0.0
rtol = 0.0


def reference(x, y, n, **kwargs):
    if n % 256:
        raise ValueError(f"race_shared.cu reverses 256-float blocks: n={n} is not a multiple of 256")
    y[:n].copy_(x[:n].view(-1, 256).flip(1).reshape(-1))
