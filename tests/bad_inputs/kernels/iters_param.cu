// A solve parameter named like a kprof option: `--iters=5` is then this dimension.
extern "C" void solve(const float* A, float* B, int N, int iters) { (void)A; (void)B; (void)N; (void)iters; }
