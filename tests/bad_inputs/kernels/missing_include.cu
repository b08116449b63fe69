// The header does not exist: nvcc cannot preprocess this file, kprof reads the text and says so.
#include "no_such_header.cuh"
extern "C" void solve(const float* A, float* B, int N) { (void)A; (void)B; (void)N; }
