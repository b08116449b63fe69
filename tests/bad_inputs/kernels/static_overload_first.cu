// A static C++ overload comes first (internal linkage, never exported).
static void solve(double* x, long n) { (void)x; (void)n; }

__global__ void scale(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i];
}

extern "C" void solve(const float* A, float* B, int N) { scale<<<(N + 255) / 256, 256>>>(A, B, N); }
