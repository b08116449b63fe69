#include "stages/timing/cupti_session.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>

#include "core/error.hpp"
#include "stages/timing/device_ops.hpp"

namespace kprof {

namespace {

constexpr size_t kBufferBytes = 4u << 20;  // 4 MiB per CUPTI activity buffer
constexpr size_t kAlign = 8;               // CUPTI requires 8-byte aligned buffers

// KIND_KERNEL, not CONCURRENT_KERNEL: see cupti_session.hpp for the H200 measurement behind it.
const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                     CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MEMSET};

std::mutex g_mu;
CuptiRecords* g_sink = nullptr;  // the active session's records (guarded by g_mu)
bool g_callbacks_registered = false;

std::string cupti_message(CUptiResult rc) {
  const char* s = nullptr;
  cuptiGetResultString(rc, &s);
  return s ? s : ("CUPTI error " + std::to_string(static_cast<int>(rc)));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// Reads the fields kprof uses; they sit at the same offsets in every CUpti_ActivityKernel and
// CUpti_ActivityMemset version CUPTI 12/13 produce (later versions only append fields).
void parse_record(const CUpti_Activity* r, CuptiRecords& out) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      if (k->start == 0 && k->end == 0) {
        ++out.no_timestamp;
        break;
      }
      KernelRecord kr;
      kr.name = demangle(k->name ? k->name : "<unnamed>");
      kr.start_ns = k->start;
      kr.end_ns = k->end;
      kr.stream_id = k->streamId;
      kr.correlation_id = k->correlationId;
      out.kernels.push_back(std::move(kr));
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      out.apis.push_back(ApiRecord{a->correlationId, a->start, a->end});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      out.memsets.push_back(MemsetRecord{m->streamId, m->bytes, m->value, m->start, m->end});
      break;
    }
    default:
      ++out.other_kinds;
  }
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_sink && valid > 0) {
      CUpti_Activity* rec = nullptr;
      while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) parse_record(rec, *g_sink);
    }
  }
  std::free(buffer);
}

void disable_all() {
  for (auto kind : kKinds) cuptiActivityDisable(kind);
}

}  // namespace

std::optional<uint32_t> marker_stream_id(const std::vector<MemsetRecord>& memsets, uint64_t bytes, uint32_t value) {
  const MemsetRecord* best = nullptr;
  for (const auto& m : memsets)
    if (m.bytes == bytes && m.value == value && (!best || m.start_ns < best->start_ns)) best = &m;
  if (!best) return std::nullopt;
  return best->stream_id;
}

CuptiSession::CuptiSession() {
  // g_mu is never held while calling into CUPTI: CUPTI's worker thread takes it in
  // buffer_completed, and an API call that waits for that thread would deadlock.
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_sink) throw check_failed("internal: two CUPTI sessions at once");
    g_sink = new CuptiRecords();
  }
  auto fail = [](const std::string& msg, std::string hint) {
    disable_all();
    std::lock_guard<std::mutex> lock(g_mu);
    delete g_sink;
    g_sink = nullptr;
    return check_failed("CUPTI cannot collect kernel records: " + msg, std::move(hint));
  };
  if (!g_callbacks_registered) {
    CUptiResult rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (rc != CUPTI_SUCCESS) throw fail("cuptiActivityRegisterCallbacks: " + cupti_message(rc), "");
    g_callbacks_registered = true;
  }
  for (auto kind : kKinds) {
    CUptiResult rc = cuptiActivityEnable(kind);
    if (rc != CUPTI_SUCCESS)
      throw fail("cuptiActivityEnable: " + cupti_message(rc),
                 rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                     ? "another profiler (Nsight Systems/Compute) holds CUPTI; run kprof outside it"
                     : "check that libcupti matches the CUDA driver (`kprof env`)");
  }
  active_ = true;
}

CuptiSession::~CuptiSession() {
  if (!active_) return;
  disable_all();
  // After a timed-out call the GPU may still run the kernel: do not wait on it here.
  if (!gpu_left_busy()) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mu);
  delete g_sink;
  g_sink = nullptr;
}

uint64_t CuptiSession::now_ns() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

CuptiRecords CuptiSession::finish() {
  CUptiResult rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  disable_all();
  // A second flush collects whatever the disable completed.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  std::lock_guard<std::mutex> lock(g_mu);
  CuptiRecords out = std::move(*g_sink);
  delete g_sink;
  g_sink = nullptr;
  active_ = false;
  out.dropped = dropped;
  if (rc != CUPTI_SUCCESS)
    throw check_failed("CUPTI could not flush its kernel records: cuptiActivityFlushAll: " + cupti_message(rc));
  return out;
}

}  // namespace kprof
