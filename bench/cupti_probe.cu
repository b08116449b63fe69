// Diagnostic: does collecting CUPTI kernel records change the kernel it times?
//
// One process per CUPTI mode (argv[1]); for each vector-add variant and size it times 100 calls,
// each after an L2 read flush (as kprof does), with CUDA events around the launch and, where the
// mode collects kernel records, CUPTI's start/end of the same kernel. Prints one TSV line per case:
//   mode  kernel  N  event_median_us  cupti_median_us  cupti_minus_event_us
// Kernels: one_per_thread and grid_stride (c = a + b), in_place (c += 1, one element per thread).
// Modes: none | conc (CONCURRENT_KERNEL only) | serial (KIND_KERNEL only) |
//        kprof (CONCURRENT_KERNEL + RUNTIME + DRIVER + MEMSET: kprof's set) | callbacks (launch callbacks only) |
//        primed (KIND_KERNEL, an empty kernel launched right before each timed one, after the flush's sync) |
//        queued (KIND_KERNEL, the timed kernel queued right behind the flush, no sync between):
//        whether the ~0.4 us that serialized records add over ncu's duration is the start on an idle GPU
// Usage: cupti_probe MODE [ITERS [noflush]]   (run it under ncu with mode none and a few iterations to get
// gpu__time_duration of the same kernels)
// Build: nvcc -O3 -arch=sm_90 -o cupti_probe bench/cupti_probe.cu -lcupti
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

__global__ void vadd_one_per_thread(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void vadd_grid_stride(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

__global__ void vadd_in_place(float* c, int n) {  // c[i] += 1: leaves its lines dirty in L2
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] += 1.0f;
}

__global__ void prime_empty() {}

__global__ void read_all(const uint4* p, size_t n, int never, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (never) sink[0] = acc;
}

std::mutex g_mu;
std::vector<std::pair<uint64_t, uint64_t>> g_kernels;  // (start, end) of vadd kernels only

void CUPTIAPI buf_req(uint8_t** b, size_t* s, size_t* m) {
  *b = static_cast<uint8_t*>(std::aligned_alloc(8, 8 << 20));
  *s = 8 << 20;
  *m = 0;
}
void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t* b, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  std::lock_guard<std::mutex> l(g_mu);
  while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(r);
      if (k->name && std::strstr(k->name, "vadd")) g_kernels.emplace_back(uint64_t{k->start}, uint64_t{k->end});
    }
  }
  std::free(b);
}
void CUPTIAPI on_cb(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "none";
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const bool flush_l2 = !(argc > 3 && std::strcmp(argv[3], "noflush") == 0);
  CK(cudaFree(nullptr));
  std::vector<CUpti_ActivityKind> kinds;
  if (mode == "conc")
    kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  else if (mode == "serial" || mode == "primed" || mode == "queued")
    kinds = {CUPTI_ACTIVITY_KIND_KERNEL};
  else if (mode == "kprof")
    kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
             CUPTI_ACTIVITY_KIND_MEMSET};
  CUpti_SubscriberHandle sub{};
  if (mode == "callbacks") {
    cuptiSubscribe(&sub, on_cb, nullptr);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (!kinds.empty()) cuptiActivityRegisterCallbacks(buf_req, buf_done);
  for (auto k : kinds)
    if (cuptiActivityEnable(k) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "cuptiActivityEnable failed\n");
      return 1;
    }

  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t flush_bytes = 2 * static_cast<size_t>(l2);
  void* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemset(flush, 1, flush_bytes));
  const int max_n = 64 << 20;
  float *a, *b, *c;
  CK(cudaMalloc(&a, max_n * 4));
  CK(cudaMalloc(&b, max_n * 4));
  CK(cudaMalloc(&c, max_n * 4));
  CK(cudaMemset(a, 0, max_n * 4));
  CK(cudaMemset(b, 0, max_n * 4));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // l2 / 24 floats: the three buffers together fill half the L2, so without a flush they stay there;
  // l2 / 12 floats: one buffer of a third of the L2 (kprof's GPU test of the flush, in place).
  for (int n : {1 << 10, 1 << 20, l2 / 24, l2 / 12, 64 << 20}) {
    for (int variant = 0; variant < 3; ++variant) {
      auto launch = [&] {
        if (variant == 0)
          vadd_one_per_thread<<<(n + 255) / 256, 256>>>(a, b, c, n);
        else if (variant == 1)
          vadd_grid_stride<<<std::min((n + 255) / 256, sms * 8), 256>>>(a, b, c, n);
        else
          vadd_in_place<<<(n + 255) / 256, 256>>>(c, n);
      };
      for (int w = 0; w < 10; ++w) launch();
      CK(cudaDeviceSynchronize());
      if (!kinds.empty()) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::lock_guard<std::mutex> l(g_mu);
        g_kernels.clear();
      }
      std::vector<double> ev;
      for (int i = 0; i < iters; ++i) {
        if (flush_l2) read_all<<<sms * 8, 256>>>(static_cast<const uint4*>(flush), flush_bytes / 16, 0, nullptr);
        if (mode != "queued") CK(cudaDeviceSynchronize());
        if (mode == "primed") prime_empty<<<1, 32>>>();
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ev.push_back(ms * 1000.0);
      }
      std::vector<double> cu;
      if (!kinds.empty()) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::lock_guard<std::mutex> l(g_mu);
        for (auto& k : g_kernels) cu.push_back((k.second - k.first) / 1000.0);
      }
      const double me = median(ev), mc = median(cu);
      std::printf("%s%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%zu\n", mode.c_str(), flush_l2 ? "" : "+noflush",
                  variant == 0   ? "one_per_thread"
                  : variant == 1 ? "grid_stride"
                                 : "in_place",
                  n, me, mc, cu.empty() ? 0.0 : mc - me, cu.size());
    }
  }
  for (auto k : kinds) cuptiActivityDisable(k);
  return 0;
}
