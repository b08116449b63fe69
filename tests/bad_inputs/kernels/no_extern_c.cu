// Forgot extern "C": the .so exports the mangled C++ name _Z5solvePKfPfi.
void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
