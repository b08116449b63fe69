extern "C" void solve(float** A, int N) { (void)A; (void)N; }
