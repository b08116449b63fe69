#include "kernel/build_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "kernel/preprocess.hpp"

namespace kprof {
namespace {

/// Copies `from` to `to` through a temporary beside it and a rename (readers never see half a file).
bool copy_atomic(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string tmp = to + unique_temp_suffix();
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) return false;
  fs::rename(tmp, to, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

}  // namespace

std::string build_cache_dir() {
  const std::string base = kprof_cache_dir();
  return base.empty() ? "" : join_path(base, "builds");
}

std::string build_key(const std::vector<std::string>& argv, const std::string& source) {
  if (argv.empty()) return "";
  uint64_t h = kFnvOffset;
  fnv1a(h, "kprof-build-v1");
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0 && argv[i - 1] == "-o") continue;  // where the .so goes does not change it
    fnv1a(h, argv[i]);
  }
  fnv1a(h, file_stamp(argv[0].find('/') == std::string::npos ? find_on_path(argv[0]) : argv[0]));
  std::vector<std::string> files = {source};
  HostPreprocess pp = preprocess_host(argv, source);
  if (pp.ok)
    for (const auto& f : preprocessed_user_files(pp.text))
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  try {
    for (const auto& f : files) {
      fnv1a(h, absolute_path(f));
      fnv1a(h, read_file(f));
    }
  } catch (const Error&) {
    return "";
  }
  return fmt::format("{:016x}", h);
}

bool build_cache_fetch(const std::string& key, const std::string& output) {
  const std::string dir = build_cache_dir();
  if (key.empty() || dir.empty()) return false;
  const std::string cached = join_path(dir, key + ".so");
  if (!path_exists(cached)) return false;
  return copy_atomic(cached, output);
}

void build_cache_store(const std::string& key, const std::string& so) {
  namespace fs = std::filesystem;
  const std::string dir = build_cache_dir();
  if (key.empty() || dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !copy_atomic(so, join_path(dir, key + ".so"))) return;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".so") entries.emplace_back(e.last_write_time(ec), e.path());
  std::sort(entries.rbegin(), entries.rend());  // newest first
  for (size_t i = kMaxCachedBuilds; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

}  // namespace kprof
