// Test kernel: every pointer non-const, as many real kernels declare them: C = A + B, and it also
// zeroes its input A (a bug).
#define MODE 1
__global__ void add(float* A, float* B, float* C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float c = A[i] + B[i];
  if (MODE == 2 && i >= n / 2) return;
  C[i] = c;
  if (MODE == 1) A[i] = 0.0f;
}
extern "C" void solve(float* A, float* B, float* C, int N) { add<<<(N + 255) / 256, 256>>>(A, B, C, N); }
