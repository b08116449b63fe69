#include "stages/timing/integrity.hpp"

#include "stages/timing/timing_values.hpp"
#include "core/enum_names.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace kprof {

/// The names of IntegrityStatus (core/enum_names.hpp).
constexpr auto kIntegrityStatusNames = enum_names<IntegrityStatus>({{IntegrityStatus::Pass, "pass"},
                                                                    {IntegrityStatus::Warn, "warn"},
                                                                    {IntegrityStatus::Fail, "fail"},
                                                                    {IntegrityStatus::NotRun, "not_run"}},
                                                                   "not_run");

std::string integrity_status_id(IntegrityStatus s) { return kIntegrityStatusNames.name(s); }

void Integrity::settle() {
  verdict = IntegrityStatus::NotRun;
  auto rank = [](IntegrityStatus s) {
    return s == IntegrityStatus::Fail ? 3 : s == IntegrityStatus::Warn ? 2 : s == IntegrityStatus::Pass ? 1 : 0;
  };
  for (const auto& c : checks)
    if (rank(c.status) > rank(verdict)) verdict = c.status;
}

bool is_library_kernel(const std::string& name) {
  static const char* const kPrefixes[] = {
      "void at::",
      "at::",
      "cublas",
      "void cublas",
      "cublasLt",
      "sm90_xmma",
      "sm80_xmma",
      "sm100_xmma",
      "ampere_",
      "volta_",
      "turing_",
      "nvjet",
      "cudnn",
      "void cudnn",
      "void cufft",
      "cufft",
      "regular_fft",
      "vector_fft",
      "nccl",
      "ncclKernel",
      "void cub::",
      "void gemv",
      "void gemmk1",
      "void splitKreduce",
      "void dot_kernel",
      "void reduce_1Block_kernel",
      "void scal_kernel",
      "void axpy_kernel",
      "void gemmSN",
  };
  for (const char* p : kPrefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

Integrity timing_integrity(const KernelTimeResult& k, const InputRotation& rotation, const MemoCheck& m) {
  Integrity out;
  const auto& s = k.summary;
  if (!k.available) {
    out.checks.push_back({"kernels launched", IntegrityStatus::NotRun, "no CUPTI records: " + k.note});
  } else {
    const size_t calls = s.sum_ms.size();
    if (calls > 0 && s.calls_without_kernels == calls)
      out.checks.push_back(
          {"kernels launched", IntegrityStatus::Fail,
           fmt::format("CUPTI saw no kernel in any of the {} timed calls: the time is host code", calls)});
    else if (s.calls_without_kernels)
      out.checks.push_back({"kernels launched", IntegrityStatus::Warn,
                            fmt::format("no kernel in {} of {} calls", s.calls_without_kernels, calls)});
    else
      out.checks.push_back({"kernels launched", IntegrityStatus::Pass,
                            fmt::format("every one of the {} calls launched kernels", calls)});
    if (k.launched_after_return || k.outside_kernels)
      out.checks.push_back(
          {"work after return", IntegrityStatus::Fail,
           fmt::format("{} kernels were launched after their call had returned and {} outside every call: the call "
                       "leaves work running that its time does not include",
                       k.launched_after_return, k.outside_kernels)});
    else
      out.checks.push_back(
          {"work after return", IntegrityStatus::Pass, "every kernel was launched while its call ran"});
    std::vector<std::string> lib;
    bool all_lib = !s.kernels.empty();
    for (const auto& kn : s.kernels) {
      if (is_library_kernel(kn.name))
        lib.push_back(kn.name);
      else
        all_lib = false;
    }
    if (all_lib)
      out.checks.push_back({"library-only kernels", IntegrityStatus::Warn,
                            fmt::format("every kernel is a library's ({}): the time measures the library, not code "
                                        "of the kernel file",
                                        fmt::join(lib, ", "))});
    else
      out.checks.push_back({"library-only kernels", IntegrityStatus::Pass,
                            lib.empty()
                                ? std::string("no library kernel")
                                : fmt::format("{} of {} kernel names are a library's", lib.size(), s.kernels.size())});
  }
  if (rotation.sets >= 2)
    out.checks.push_back({"input rotation", IntegrityStatus::Pass,
                          fmt::format("timed calls rotated over {} input sets (seeds {})", rotation.sets,
                                      fmt::join(rotation.seeds, ", "))});
  else
    out.checks.push_back({"input rotation", IntegrityStatus::NotRun,
                          rotation.note.empty() ? "one input set (--input-sets 1)" : rotation.note});
  if (!m.ran)
    out.checks.push_back({"memoization", IntegrityStatus::NotRun, m.note});
  else if (m.suspected)
    out.checks.push_back(
        {"memoization", IntegrityStatus::Fail,
         fmt::format("{} calls on identical inputs took {} (median), {:.2f}x faster than the rotated calls' {}: the "
                     "kernel seems to reuse an earlier answer when its inputs repeat (or its time depends on the "
                     "input values)",
                     m.identical_calls, fmt::format("{:.4g} ms", m.identical_median_ms),
                     m.verdict ? m.verdict->interval.ratio : 0.0, fmt::format("{:.4g} ms", m.rotated_median_ms))});
  else
    out.checks.push_back(
        {"memoization", IntegrityStatus::Pass,
         fmt::format("{} calls on identical inputs: median {:.4g} ms against {:.4g} ms rotated (ratio {:.3f}; "
                     "memoization is reported above a {:.0f}% gap)",
                     m.identical_calls, m.identical_median_ms, m.rotated_median_ms,
                     m.verdict ? m.verdict->interval.ratio : 0.0, kMemoGap * 100)});
  out.settle();
  return out;
}

}  // namespace kprof
