// Test kernel: a non-const index array. kprof's never-written pass must not fill it
// with its sentinel (a huge negative index would make this gather fault).
__global__ void gather(int* idx, const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}
extern "C" void solve(int* idx, const float* in, float* out, int N) {
  gather<<<(N + 255) / 256, 256>>>(idx, in, out, N);
}
