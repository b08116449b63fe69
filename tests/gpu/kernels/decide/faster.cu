// base.cu with a planted gain: 247 steps instead of 256 (-3.5% of the loop, about 3.2% faster):
// `kprof run --decide` must keep it.
#define KPROF_STEPS 247
#include "base.cu"
