// Vector add whose element type is chosen by the preprocessor: -DUSE_DOUBLE makes it double.
// Read as text, `real` is not a type kprof knows; read as nvcc compiles it, it is float or double
// (GPU stage `badinput` builds it both ways and checks it against the vector_add ref.py).
#ifdef USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif

#define THREADS 256

__global__ void vadd_kernel(const real* __restrict__ a, const real* __restrict__ b, real* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const real* A, const real* B, real* C, int N) {
  vadd_kernel<<<(N + THREADS - 1) / THREADS, THREADS>>>(A, B, C, N);
}
