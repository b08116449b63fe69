extern "C" void solve(const float* A, float*, int N) { (void)A; (void)N; }
