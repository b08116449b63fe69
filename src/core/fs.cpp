#include "core/fs.hpp"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/settings.hpp"
#include "core/text.hpp"

namespace kprof {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string unique_temp_suffix() {
  static std::atomic<unsigned long> counter{0};
  return fmt::format(".tmp{}-{}", ::getpid(), counter.fetch_add(1));
}

void make_dirs(const std::string& dir) {
  if (dir.empty() || dir == "." || path_exists(dir)) return;
  make_dirs(parent_dir(dir));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw usage_error("cannot create folder '" + dir + "': " + std::strerror(errno));
}

void write_file_atomic(const std::string& path, const std::string& content) {
  make_dirs(parent_dir(path));
  std::string tmp = path + unique_temp_suffix();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw usage_error("cannot write '" + tmp + "': " + std::strerror(errno));
    // A report for people (Markdown, the page, a chart) is always valid UTF-8: foreign bytes are
    // escaped the one way JSON escapes them (core/text.hpp escape_foreign_bytes).
    bool text_report = ends_with(path, ".md") || ends_with(path, ".html") || ends_with(path, ".svg") ||
                       ends_with(path, ".json") || ends_with(path, ".txt");
    out << (text_report ? escape_foreign_bytes(content) : content);
    out.flush();
    if (!out) {
      ::unlink(tmp.c_str());
      throw usage_error("cannot write '" + path + "': " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw usage_error("cannot write '" + path + "': " + std::strerror(e));
  }
}

std::string output_dir_problem(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is a file, not a folder";
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return "folder '" + dir + "' is not writable";
    return "";
  }
  // Missing: the nearest existing ancestor decides whether it can be created.
  std::string up = dir;
  while (true) {
    std::string p = parent_dir(up);
    if (p == up) return "";
    up = p;
    if (::stat(up.c_str(), &st) == 0) break;
  }
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' cannot be created: '" + up + "' is a file, not a folder";
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    return "'" + dir + "' cannot be created: folder '" + up + "' is not writable";
  return "";
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

double file_mtime(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return -1.0;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
}

std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return fmt::format("{} {:.6f}", static_cast<long long>(st.st_size), file_mtime(path));
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string file_stem(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  return (dot == std::string::npos || dot == 0) ? base : base.substr(0, dot);
}

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[4096];
  if (!::getcwd(buf, sizeof buf)) return path;
  return join_path(buf, path);
}

std::string kprof_cache_dir() {
  const Settings& s = settings();
  if (!s.cache_dir.empty()) return s.cache_dir;
  if (!s.xdg_cache_home.empty()) return join_path(s.xdg_cache_home, "kprof");
  if (!s.home.empty()) return join_path(s.home, ".cache/kprof");
  return "";
}

std::string temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

ScratchFile::ScratchFile(const std::string& prefix, const std::string& suffix, std::string_view content) {
  std::string tmpl = join_path(temp_root(), prefix + "-XXXXXX" + suffix);
  int fd = ::mkstemps(tmpl.data(), static_cast<int>(suffix.size()));
  if (fd < 0) return;
  bool written = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ::close(fd);
  if (written)
    path_ = tmpl;
  else
    std::remove(tmpl.c_str());
}

ScratchFile::~ScratchFile() {
  if (!path_.empty()) std::remove(path_.c_str());
}

std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string full = join_path(dir, program);
    struct stat st;
    if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(full.c_str(), X_OK) == 0) return full;
  }
  return "";
}

std::vector<std::string> glob_sorted(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kprof
