// No solve at all (only in a comment: extern "C" void solve(float* A)).
__global__ void k(float* a) { a[0] = 1.0f; }
