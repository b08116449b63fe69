#include "flows/parallel_builds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "kernel/load.hpp"

namespace kprof {

namespace {

/// Whether `spec` is built: --build on a version that resolves to a compiled implementation.
bool needs_build(const KernelSpec& spec) {
  if (!spec.build) return false;
  try {
    return !is_python_impl(spec_implementation(spec));
  } catch (const Error&) {  // not resolvable: the versions' validation reports it
    return false;
  }
}

}  // namespace

ParallelBuilds::ParallelBuilds(const std::vector<KernelSpec>& versions, const std::vector<std::string>& names,
                               unsigned workers, bool hold_lines)
    : builds_(versions.size()), hold_lines_(hold_lines), done_(versions.size()) {
  for (size_t i = 0; i < versions.size(); ++i) {
    ready_.push_back(done_[i].get_future().share());
    builds_[i].needed = needs_build(versions[i]);
    if (builds_[i].needed)
      todo_.push_back(i);
    else
      done_[i].set_value();
  }
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  const size_t n = std::min<size_t>(workers, todo_.size());
  // The threads copy what they read: the caller's vectors may go away before the builds end.
  for (size_t t = 0; t < n; ++t) threads_.emplace_back([this, versions, names] { work(versions, names); });
}

ParallelBuilds::~ParallelBuilds() {
  for (auto& t : threads_) t.join();
}

void ParallelBuilds::work(const std::vector<KernelSpec>& versions, const std::vector<std::string>& names) {
  using Clock = std::chrono::steady_clock;
  for (size_t k = next_++; k < todo_.size(); k = next_++) {
    const size_t i = todo_[k];
    VersionBuild& b = builds_[i];
    if (cancelled_) {
      b.error = std::make_exception_ptr(check_failed("not built: the run stopped before its build started"));
      done_[i].set_value();
      continue;
    }
    auto t0 = Clock::now();
    std::string what;
    try {
      BuildOptions o = build_options(versions[i]);
      o.echo = false;  // one line when it ends, not the nvcc line of each version interleaved
      o.cancel = &cancelled_;
      b.result = build_kernel(o);
      what = build_how_text(*b.result);
    } catch (const Error& e) {
      b.error = std::current_exception();
      what = "FAILED (" + one_line_summary(e.what()) + ")";
    } catch (const std::exception& e) {  // e.g. std::system_error from the file system
      b.error = std::make_exception_ptr(check_failed(std::string("building failed: ") + e.what()));
      what = "FAILED (" + std::string(e.what()) + ")";
    } catch (...) {
      b.error = std::make_exception_ptr(check_failed("building failed with an unknown exception"));
      what = "FAILED";
    }
    b.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (b.result && b.result->how != "compiled") what += fmt::format(" ({:.1f} s)", b.wall_s);
    if (!cancelled_) {  // a stopped run prints no more lines
      std::lock_guard<std::mutex> lock(lines_mutex_);
      std::string line = fmt::format("[{}] build: {}", names[i], what);
      if (hold_lines_)
        held_.push_back(std::move(line));
      else
        print_progress(line);
    }
    done_[i].set_value();
  }
}

void ParallelBuilds::show_lines() {
  std::lock_guard<std::mutex> lock(lines_mutex_);
  hold_lines_ = false;
  if (!cancelled_)
    for (const auto& line : held_) print_progress(line);
  held_.clear();
}

const VersionBuild& ParallelBuilds::wait(size_t i) {
  ready_.at(i).wait();
  if (builds_[i].error) std::rethrow_exception(builds_[i].error);
  return builds_[i];
}

void ParallelBuilds::wait_all() {
  for (auto& r : ready_) r.wait();
}

}  // namespace kprof
