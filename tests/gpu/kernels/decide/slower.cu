// base.cu with a planted delay: 265 steps instead of 256 (+3.5% of the loop, about +3.2% of the
// kernel with its fixed memory traffic): `kprof run --decide` must revert it.
#define KPROF_STEPS 265
#include "base.cu"
