// solve inside an extern "C" { } block, after a C++ overload.
void solve(float* x) { (void)x; }
extern "C" {
void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
}
