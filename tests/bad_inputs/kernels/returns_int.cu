extern "C" int solve(const float* A, float* B, int N) { (void)A; (void)B; return N; }
