#include "flows/run/run_steps.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>
#include <future>
#include <map>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/implementation.hpp"
#include "core/term.hpp"
#include "kernel/kernel_spec.hpp"
#include "kernel/load.hpp"

namespace kprof {

using Clock = std::chrono::steady_clock;

/// "[v1] check: PASS (2.3 s)".
std::string step_text(const std::string& version, const std::string& step, const std::string& what, double seconds) {
  return fmt::format("[{}] {}: {} ({:.1f} s)", version, step, what, seconds);
}

void step_line(const std::string& version, const std::string& step, const std::string& what, Clock::time_point t0) {
  print_progress(step_text(version, step, what, std::chrono::duration<double>(Clock::now() - t0).count()));
}

/// roofline.svg of `kprof run`: each version's leading kernel with its bound; started on the
/// chart workers (RooflineJob::note() waits for it and says why not).
RooflineJob start_versions_roofline(const std::string& dir,
                                    const std::vector<std::pair<std::string, const NcuAnalysis*>>& done) {
  std::vector<RooflineEntry> entries;
  const Ceilings* ceilings = nullptr;
  for (const auto& [name, a] : done) {
    const CallVerdict& v = a->verdict;
    if (v.leading < 0 || !v.ceilings) continue;
    if (!ceilings) ceilings = &*v.ceilings;
    entries.push_back({name, &a->table.kernels[static_cast<size_t>(v.leading)], v.work, v.bound});
  }
  if (!ceilings) return RooflineJob::not_drawn("roofline not drawn: no version was classified");
  return start_roofline(dir, roofline_spec(entries, *ceilings, "kprof roofline: the versions' leading kernels"));
}

/// "A: f32 x 1024, C: f32 x 1024" from {"A", "f32 x 1024"}, {"C", "f32 x 1024"}.
std::string buffer_list(const std::vector<std::pair<std::string, std::string>>& buffers) {
  std::vector<std::string> parts;
  for (const auto& [name, what] : buffers) parts.push_back(name + ": " + what);
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// The row of version `j` before it runs.
VersionRow new_row(const RunRequest& req, const std::vector<std::string>& names, size_t j) {
  VersionRow r;
  r.name = names[j];
  r.kernel = req.versions[j].kernel;
  r.folder = join_path(req.output_dir, names[j]);
  return r;
}

std::string first_failure(const CheckResult& r) {
  if (r.fault) return r.fault->message;
  for (const auto& t : r.trials) {
    for (const auto& o : t.outputs)
      if (!o.pass) return o.name + ": " + o.reason;
    for (const auto& g : t.guards) return "write " + std::string(g.before ? "before" : "past") + " buffer " + g.buffer;
    for (const auto& m : t.modified_inputs)
      if (m.fails) return "const input " + m.name + " modified";
    for (const auto& o : t.repeat)
      if (!o.pass) return o.name + ": " + o.reason;
  }
  return "failed";
}

/// The run's profile settings (its ref.py for the work model).
ProfileSettings run_profile_settings(const RunRequest& req) {
  ProfileSettings ps = req.profile;
  ps.ref = req.ref;
  return ps;
}

/// validate_spec of every version; the .cu ones at once (each reads solve() through nvcc's host
/// preprocessor, 0.1 s or more), the .py ones on this thread (their check runs Python). Rethrows
/// the first version's error, in the order given.
void validate_versions(const std::vector<KernelSpec>& versions) {
  std::vector<std::future<void>> cu(versions.size());
  for (size_t i = 0; i < versions.size(); ++i) {
    bool python = true;  // also when the implementation does not resolve: validate_spec says why, in order
    try {
      python = is_python_impl(spec_implementation(versions[i]));
    } catch (const Error&) {
    }
    if (!python) cu[i] = std::async(std::launch::async, [&versions, i] { validate_spec(versions[i]); });
  }
  std::exception_ptr first;
  for (size_t i = 0; i < versions.size(); ++i) {
    try {
      if (cu[i].valid())
        cu[i].get();
      else if (!first)
        validate_spec(versions[i]);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

/// True when the run's ncu step is one session for two or more versions, which may start in standby.
bool standby_wanted(const RunRequest& req) {
  return req.one_ncu_session && req.profile.run_ncu && req.versions.size() >= 2;
}

std::vector<std::string> version_folder_names(const std::vector<KernelSpec>& versions) {
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const auto& v : versions) {
    std::string stem = file_stem(v.kernel);
    int n = ++seen[stem];
    names.push_back(n == 1 ? stem : fmt::format("{}-{}", stem, n));
  }
  return names;
}

void drop_pending(std::vector<PendingProfile>& pending, std::vector<size_t>& rows, const std::vector<bool>& dropped) {
  size_t k = 0;
  for (size_t j = 0; j < pending.size(); ++j) {
    if (dropped[j]) continue;
    if (k != j) {
      pending[k] = std::move(pending[j]);
      rows[k] = rows[j];
    }
    ++k;
  }
  pending.resize(k);
  rows.resize(k);
}

size_t buffer_bytes(const KernelInstance& inst) {
  size_t b = 0;
  for (const auto& v : inst.buffers()) b += v.count * dtype_size(v.dtype);
  return b;
}

}  // namespace kprof
