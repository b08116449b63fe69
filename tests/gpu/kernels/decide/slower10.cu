// base.cu with a planted 10% delay: 284 steps instead of 256 (+11% of the loop, about +10% of the
// kernel with its fixed memory traffic): the pytest gate's rule (`kprof run BASE NEW --decide
// --min-gain 5`, a revert fails the test) must fail it (issue 49).
#define KPROF_STEPS 284
#include "base.cu"
