#include <complex>
extern "C" void solve(const std::complex<float>* A, float* B, int N) { (void)A; (void)B; (void)N; }
