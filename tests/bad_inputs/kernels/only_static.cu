// extern "C" but inside an unnamed namespace: internal linkage, not exported.
namespace {
extern "C" void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
}
