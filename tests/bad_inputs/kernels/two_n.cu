extern "C" void solve(const float* N, float* B, int N2) { (void)N; (void)B; (void)N2; }
