// nvcc defines __CUDACC__: the first branch is never compiled.
#ifndef __CUDACC__
extern "C" void solve(double* host_only, int K) { (void)host_only; (void)K; }
#else
extern "C" void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
#endif
