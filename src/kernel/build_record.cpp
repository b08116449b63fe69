#include "kernel/build_record.hpp"

#include <sys/stat.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {
namespace {

/// Size in bytes of a regular file, or -1.
long long file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return static_cast<long long>(st.st_size);
}

}  // namespace

std::string build_record_path(const std::string& so_path) { return so_path + ".kprof-build.json"; }

bool write_build_record(const std::string& so_path, BuildRecord r) {
  r.so_mtime = file_mtime(so_path);
  r.so_size = file_size(so_path);
  if (r.so_size < 0) return false;
  nlohmann::json j = {{"source", absolute_path(r.source)},
                      {"command", r.command},
                      {"extra_flags", r.extra_flags},
                      {"arch", r.arch},
                      {"implementation", r.implementation},
                      {"so_mtime", r.so_mtime},
                      {"so_size", r.so_size},
                      {"kprof", KPROF_VERSION}};
  try {
    write_file_atomic(build_record_path(so_path), j.dump(2) + "\n");
  } catch (const Error&) {
    return false;
  }
  return true;
}

std::optional<BuildRecord> read_build_record(const std::string& so_path, const std::string& source, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<BuildRecord> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (why) why->clear();
  const std::string path = build_record_path(so_path);
  if (!path_exists(path)) return std::nullopt;
  BuildRecord r;
  try {
    nlohmann::json j = nlohmann::json::parse(read_file(path));
    r.source = j.at("source").get<std::string>();
    r.command = j.at("command").get<std::vector<std::string>>();
    r.extra_flags = j.value("extra_flags", std::vector<std::string>{});
    r.arch = j.value("arch", std::string());
    r.implementation = j.value("implementation", std::string());
    r.so_mtime = j.at("so_mtime").get<double>();
    r.so_size = j.at("so_size").get<long long>();
  } catch (const std::exception&) {
    return fail(path + " is not a kprof build record");
  }
  if (r.command.empty()) return fail(path + " holds no nvcc command");
  if (r.source != absolute_path(source)) return fail(path + " records another source (" + r.source + ")");
  if (file_size(so_path) != r.so_size || std::fabs(file_mtime(so_path) - r.so_mtime) > 1e-3)
    return fail(so_path + " changed after kprof built it (rebuilt by hand?), so " + path + " no longer describes it");
  return r;
}

}  // namespace kprof
