// extern "C" on the declaration only: the definition below inherits C linkage.
extern "C" void solve(const float*, float*, int);

void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
