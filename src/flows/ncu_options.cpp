#include "flows/ncu_options.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/ncu/source_section.hpp"

namespace kprof {
namespace {

/// 90 for sm_90: the catalog's metric names depend on it (0 when the GPU cannot be asked).
int compute_capability(int gpu) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gpu);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, gpu);
  return major * 10 + minor;
}

}  // namespace

std::string write_kprof_source_section(const std::string& base, std::string* why) {
  const std::string dir = join_path(base, kprof_source_section_dir_name());
  const std::string file = join_path(dir, std::string(kKprofSourceSectionId) + ".section");
  try {
    if (!path_exists(file) || read_file(file) != kprof_source_section_text())
      write_file_atomic(file, kprof_source_section_text());
    return dir;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return "";
  }
}

std::string kprof_source_section_folder(std::string* why) {
  static std::mutex m;
  static std::string folder, problem, for_cache;
  std::lock_guard<std::mutex> lock(m);
  // Written once per process and cache folder; again when the file has gone since (a cache folder
  // cleaned) or the cache folder changed (KPROF_CACHE_DIR set later in the process).
  const std::string cache = kprof_cache_dir();
  if (folder.empty() || cache != for_cache ||
      !path_exists(join_path(folder, std::string(kKprofSourceSectionId) + ".section"))) {
    problem.clear();
    folder.clear();
    for_cache = cache;
    std::string why_cache = "no cache folder (KPROF_CACHE_DIR, XDG_CACHE_HOME, HOME unset)";
    if (!cache.empty()) folder = write_kprof_source_section(cache, &why_cache);
    if (folder.empty()) {
      std::string why_tmp;
      folder = write_kprof_source_section(temp_root(), &why_tmp);
      if (folder.empty()) problem = why_cache + "; " + why_tmp;
    }
  }
  if (why) *why = problem;
  return folder;
}

NcuRunOptions session_ncu_options(const KernelSpec& spec, const ProfileSettings& s) {
  NcuRunOptions no;
  no.metrics = ncu_metric_names(compute_capability(spec.gpu));
  // Every leaf of SM and memory SOL (ncu's breakdown: expansion), so the unit behind each SOL is named.
  for (const auto& b : sol_breakdown_requests()) no.metrics.push_back(b);
  no.metric_set = s.metric_set;
  no.timeout_s = s.ncu_timeout_s;
  no.show_progress = s.show_progress;
  no.source = s.source;
  // stock_source_section keeps ncu's own SourceCounters (every per-instruction metric).
  if (s.source && s.metric_set == "kprof" && !s.stock_source_section) {
    std::string why;
    no.source_section_folder = kprof_source_section_folder(&why);
    static std::once_flag warned;
    if (no.source_section_folder.empty())
      std::call_once(warned, [&] {
        print_warning("kprof's source-counter section could not be written (" + why +
                      "): ncu collects its stock SourceCounters section instead (a longer profiled call)");
      });
  }
  return no;
}

NcuRunOptions own_session_ncu_options(const KernelSpec& spec, const ProfileSettings& s, const std::string& out_dir) {
  NcuRunOptions no = session_ncu_options(spec, s);
  no.report_base = join_path(out_dir, "profile");
  return no;
}

}  // namespace kprof
