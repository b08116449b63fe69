// Host driver for the SGEMM progression (examples/gemm_progression/v*.cu), used by
// scripts/capture-gemm-reports.sh to time each version and to give Nsight Compute exactly one
// solve() call to profile.
//
//   nvcc -O3 -arch=sm_90 bench/gemm_driver.cu -o gemm_driver -ldl
//   gemm_driver SO M N K once   # one solve(), then check 64 sampled C elements: PASS / FAIL
//   gemm_driver SO M N K time   # 3 warm-up calls, 20 timed calls: median_ms=... min_ms=...
//
// SO is a kernel built as kprof builds it (nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90
// -lineinfo) exposing extern "C" void solve(const float* A, const float* B, float* C, int M,
// int K, int N): row-major C[M, N] = A[M, K] @ B[K, N] on the default stream. Note the argument
// order here, M N K, against solve()'s M, K, N.
//
// A and B are filled on the host with a fixed-seed pseudo-normal pattern (sum of 4 uniforms,
// mean 0, variance 1) and copied over; C starts as NaN so an element the kernel never writes
// fails the check. No kernel other than solve()'s runs on the device (no device-side fill, no
// memset), so `ncu -c 1` profiles solve()'s kernel. The check compares 64 C elements (the four
// corners, the last row and column, and random ones) with a double-precision dot product of
// the same float inputs: |C - ref| <= 1e-3 + 1e-3 * |ref|.
//
// Exit codes: 0 PASS / timed; 1 FAIL (wrong C); 2 usage; 3 dlopen or dlsym failed; 4 CUDA error
// (allocation, copy, launch or execution); 5 host allocation failed.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <limits>
#include <vector>

namespace {

using SolveFn = void (*)(const float*, const float*, float*, int, int, int);

constexpr int kExitFail = 1, kExitUsage = 2, kExitDl = 3, kExitCuda = 4, kExitHostAlloc = 5;

#define CUDA_OR_DIE(call)                                                                   \
  do {                                                                                      \
    const cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "gemm_driver: CUDA error at %s:%d: %s: %s (%s)\n", __FILE__,     \
                   __LINE__, #call, cudaGetErrorName(err_), cudaGetErrorString(err_));      \
      std::exit(kExitCuda);                                                                 \
    }                                                                                       \
  } while (0)

// After solve(): a launch error (bad configuration, missing kernel image) shows in
// cudaGetLastError, an execution error (illegal address) at the synchronisation.
void check_after_solve(const char* what) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "gemm_driver: CUDA error after %s: %s (%s)\n", what,
                 cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(kExitCuda);
  }
}

bool parse_dim(const char* s, int* out) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v <= 0 || v > INT_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

// splitmix64: a fixed-seed generator, the same stream on every machine.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Irwin-Hall with 4 terms, centred and scaled to variance 1: normal-ish, bounded by +-3.46.
  float normalish() {
    const double u = uniform() + uniform() + uniform() + uniform();
    return static_cast<float>((u - 2.0) * std::sqrt(3.0));
  }
};

void fill(std::vector<float>& v, uint64_t seed) {
  Rng rng{seed};
  for (float& x : v) x = rng.normalish();
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s SO M N K MODE\n"
               "  SO    kernel .so exposing extern \"C\" void solve(const float* A, const float* B,\n"
               "        float* C, int M, int K, int N)\n"
               "  M N K positive sizes: C[M, N] = A[M, K] @ B[K, N], row-major float32\n"
               "  MODE  once: one solve() call, check 64 sampled C elements, print PASS or FAIL\n"
               "        time: 3 warm-up calls, 20 timed calls, print median_ms=... min_ms=...\n",
               argv0);
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) return usage(argv[0]);
  const char* so_path = argv[1];
  int M = 0, N = 0, K = 0;
  if (!parse_dim(argv[2], &M) || !parse_dim(argv[3], &N) || !parse_dim(argv[4], &K)) {
    std::fprintf(stderr, "gemm_driver: M, N and K must be positive integers (got %s %s %s)\n",
                 argv[2], argv[3], argv[4]);
    return usage(argv[0]);
  }
  const bool once = std::strcmp(argv[5], "once") == 0;
  const bool time = std::strcmp(argv[5], "time") == 0;
  if (!once && !time) {
    std::fprintf(stderr, "gemm_driver: MODE must be 'once' or 'time' (got '%s')\n", argv[5]);
    return usage(argv[0]);
  }

  // A path without a slash would make dlopen search the library path instead of the file.
  std::string so = so_path;
  if (so.find('/') == std::string::npos) so = "./" + so;
  void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "gemm_driver: dlopen(%s) failed: %s\n", so.c_str(), dlerror());
    return kExitDl;
  }
  dlerror();
  auto solve = reinterpret_cast<SolveFn>(dlsym(lib, "solve"));
  if (const char* err = dlerror(); err != nullptr || solve == nullptr) {
    std::fprintf(stderr, "gemm_driver: dlsym(solve) in %s failed: %s\n", so.c_str(),
                 err != nullptr ? err : "symbol is NULL");
    return kExitDl;
  }

  const size_t nA = static_cast<size_t>(M) * K, nB = static_cast<size_t>(K) * N,
               nC = static_cast<size_t>(M) * N;
  std::vector<float> hA, hB, hC;
  try {
    hA.resize(nA);
    hB.resize(nB);
    hC.assign(nC, std::numeric_limits<float>::quiet_NaN());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gemm_driver: cannot allocate %zu host floats\n", nA + nB + nC);
    return kExitHostAlloc;
  }
  fill(hA, 0x5EEDA11Aull);
  fill(hB, 0x5EEDB22Bull);

  int dev = 0;
  CUDA_OR_DIE(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CUDA_OR_DIE(cudaGetDeviceProperties(&prop, dev));
  std::printf("gemm_driver: %s, %s, M=%d N=%d K=%d, mode %s\n", prop.name, so.c_str(), M, N, K,
              argv[5]);

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;  // cudaMalloc: 256-byte aligned
  CUDA_OR_DIE(cudaMalloc(&dA, nA * sizeof(float)));
  CUDA_OR_DIE(cudaMalloc(&dB, nB * sizeof(float)));
  CUDA_OR_DIE(cudaMalloc(&dC, nC * sizeof(float)));
  CUDA_OR_DIE(cudaMemcpy(dA, hA.data(), nA * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OR_DIE(cudaMemcpy(dB, hB.data(), nB * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OR_DIE(cudaMemcpy(dC, hC.data(), nC * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OR_DIE(cudaDeviceSynchronize());

  int rc = 0;
  if (once) {
    solve(dA, dB, dC, M, K, N);
    check_after_solve("solve()");
    CUDA_OR_DIE(cudaMemcpy(hC.data(), dC, nC * sizeof(float), cudaMemcpyDeviceToHost));

    // 64 samples: the 4 corners, 6 on the last row, 6 on the last column, 48 random.
    std::vector<std::pair<int, int>> at = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    Rng pick{0xC0FFEEull};
    for (int i = 0; i < 6; ++i) at.emplace_back(M - 1, static_cast<int>(pick.next() % N));
    for (int i = 0; i < 6; ++i) at.emplace_back(static_cast<int>(pick.next() % M), N - 1);
    while (at.size() < 64)
      at.emplace_back(static_cast<int>(pick.next() % M), static_cast<int>(pick.next() % N));

    int bad = 0;
    double worst = 0.0;
    for (const auto& [r, c] : at) {
      double ref = 0.0;
      for (int k = 0; k < K; ++k)
        ref += static_cast<double>(hA[static_cast<size_t>(r) * K + k]) *
               static_cast<double>(hB[static_cast<size_t>(k) * N + c]);
      const double got = hC[static_cast<size_t>(r) * N + c];
      const double err = std::fabs(got - ref), tol = 1e-3 + 1e-3 * std::fabs(ref);
      if (!(err <= tol)) {  // NaN (never written) fails too
        if (bad < 8)
          std::printf("  mismatch C[%d][%d] = %.7g, reference %.7g (|diff| %.3g > tol %.3g)\n", r,
                      c, got, ref, err, tol);
        ++bad;
      }
      if (std::isnan(err) || err > worst) worst = std::isnan(err) ? INFINITY : err;
    }
    if (bad == 0) {
      std::printf("PASS: 64 sampled C elements within 1e-3 + 1e-3*|ref| (max |diff| %.3g)\n", worst);
    } else {
      std::printf("FAIL: %d of 64 sampled C elements outside 1e-3 + 1e-3*|ref|\n", bad);
      rc = kExitFail;
    }
  } else {
    for (int i = 0; i < 3; ++i) solve(dA, dB, dC, M, K, N);
    check_after_solve("warm-up solve()");
    constexpr int kTimed = 20;
    cudaEvent_t start, stop;
    CUDA_OR_DIE(cudaEventCreate(&start));
    CUDA_OR_DIE(cudaEventCreate(&stop));
    std::vector<float> ms(kTimed);
    for (int i = 0; i < kTimed; ++i) {
      CUDA_OR_DIE(cudaEventRecord(start, 0));
      solve(dA, dB, dC, M, K, N);
      CUDA_OR_DIE(cudaEventRecord(stop, 0));
      CUDA_OR_DIE(cudaEventSynchronize(stop));
      check_after_solve("timed solve()");
      CUDA_OR_DIE(cudaEventElapsedTime(&ms[i], start, stop));
    }
    std::sort(ms.begin(), ms.end());
    const double median = 0.5 * (ms[kTimed / 2 - 1] + ms[kTimed / 2]);
    const double tflops = 2.0 * M * N * static_cast<double>(K) / (median * 1e-3) / 1e12;
    std::printf("median_ms=%.4f min_ms=%.4f tflops=%.2f\n", median, ms[0], tflops);
    CUDA_OR_DIE(cudaEventDestroy(start));
    CUDA_OR_DIE(cudaEventDestroy(stop));
  }
  CUDA_OR_DIE(cudaFree(dA));
  CUDA_OR_DIE(cudaFree(dB));
  CUDA_OR_DIE(cudaFree(dC));
  return rc;
}
