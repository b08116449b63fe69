/* A stand-in libcuda.so.1 for the older-driver tests (tests/unit/test_old_driver.cpp): what an R570
 * driver's libcuda answers to a CUDA runtime, on a machine without a GPU. The CUDA 13 runtime
 * (cudart, linked into kprof) loads it through LD_LIBRARY_PATH, looks its entry points up with
 * cuGetProcAddress_v2 and asks cuDriverGetVersion, which says CUDA 12.8 (12080); the runtime then
 * answers cudaErrorInsufficientDriver itself. Nothing of kprof's own version read is replaced. */
#include <string.h>

typedef int CUresult; /* CUDA_SUCCESS 0, CUDA_ERROR_NOT_FOUND 500 */

static CUresult driver_get_version(int* version) {
  *version = 12080;
  return 0;
}

static CUresult init(unsigned flags) {
  (void)flags;
  return 0;
}

CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int version, unsigned long long flags, int* status);

CUresult cuDriverGetVersion(int* version) { return driver_get_version(version); }

CUresult cuInit(unsigned flags) { return init(flags); }

/* Only the three entry points the runtime needs before it compares versions; every other lookup
 * is "symbol not found" (status 1), as an older driver answers for an entry point it lacks. */
CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int version, unsigned long long flags, int* status) {
  (void)version;
  (void)flags;
  void* f = !strcmp(symbol, "cuDriverGetVersion") ? (void*)driver_get_version
            : !strcmp(symbol, "cuInit")           ? (void*)init
            : !strcmp(symbol, "cuGetProcAddress") ? (void*)cuGetProcAddress_v2
                                                  : 0;
  *fn = f;
  if (status) *status = f ? 0 : 1;
  return f ? 0 : 500;
}
