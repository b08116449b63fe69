#include "kernel/cutlass.hpp"

#include <cstdlib>
#include <regex>

#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "python/interpreter.hpp"

namespace kprof {
namespace {

bool has_cutlass_h(const std::string& include_dir) { return path_exists(join_path(include_dir, "cutlass/cutlass.h")); }

CutlassInstall from_root(const std::string& root, const std::string& source) {
  CutlassInstall c;
  c.include_dir = join_path(root, "include");
  std::string util = join_path(root, "tools/util/include");
  if (path_exists(join_path(util, "cutlass/util"))) c.util_include_dir = util;
  c.version = cutlass_version(c.include_dir);
  c.source = source;
  return c;
}

}  // namespace

CutlassSearch CutlassSearch::from_environment() {
  CutlassSearch s;
  for (const char* var : {"CUTLASS_PATH", "CUTLASS_ROOT", "CUTLASS_HOME"})
    if (const char* v = std::getenv(var); v && *v) s.env_roots.emplace_back(var, v);
  return s;
}

std::string cutlass_version(const std::string& include_dir) {
  std::string text;
  try {
    text = read_file(join_path(include_dir, "cutlass/version.h"));
  } catch (...) {
    return "unknown";
  }
  std::string parts[3];
  const char* names[3] = {"CUTLASS_MAJOR", "CUTLASS_MINOR", "CUTLASS_PATCH"};
  for (int i = 0; i < 3; ++i) {
    std::regex re(std::string("#define\\s+") + names[i] + "\\s+([0-9]+)");
    std::smatch m;
    if (!std::regex_search(text, m, re)) return "unknown";
    parts[i] = m[1];
  }
  return parts[0] + "." + parts[1] + "." + parts[2];
}

CutlassLookup locate_cutlass(const CutlassSearch& s) {
  CutlassLookup r;
  if (!s.env_roots.empty()) {
    const auto& [var, root] = s.env_roots.front();
    if (has_cutlass_h(join_path(root, "include"))) {
      r.found = from_root(root, var);
    } else if (has_cutlass_h(root)) {  // pointed at the include folder itself
      CutlassInstall c;
      c.include_dir = root;
      c.version = cutlass_version(root);
      c.source = var;
      r.found = c;
    } else {
      r.error = var + "=" + root + " has no include/cutlass/cutlass.h";
      r.fix = "set " + var + " to the CUTLASS root (the folder holding include/ and tools/), or unset it";
    }
    return r;
  }
  for (const auto& root : s.standard_roots)
    if (has_cutlass_h(join_path(root, "include"))) {
      r.found = from_root(root, root);
      return r;
    }
  for (const auto& inc : s.include_dirs)
    if (has_cutlass_h(inc)) {
      CutlassInstall c;
      c.include_dir = inc;
      c.version = cutlass_version(inc);
      c.source = inc;
      r.found = c;
      return r;
    }
  if (!s.pip_source.empty() && has_cutlass_h(join_path(s.pip_source, "include"))) {
    r.found = from_root(s.pip_source, "pip nvidia-cutlass" + (s.pip_version.empty() ? "" : " " + s.pip_version));
    return r;
  }
  std::string places;
  for (const auto& p : s.standard_roots) places += p + ", ";
  for (const auto& p : s.include_dirs) places += p + ", ";
  r.error = "no CUTLASS C++ headers: CUTLASS_PATH, CUTLASS_ROOT and CUTLASS_HOME are unset and none in " + places +
            "nor the nvidia-cutlass pip package";
  r.fix =
      "set CUTLASS_PATH to a CUTLASS checkout (the folder holding include/cutlass/cutlass.h), or "
      "`pip install nvidia-cutlass` into " +
      python_executable();
  return r;
}

std::string find_cutlass_pip_source(double timeout_s, const std::string& python) {
  static const char* script =
      "import importlib.util, os\n"
      "s = importlib.util.find_spec('cutlass_library')\n"
      "if s is not None and s.submodule_search_locations:\n"
      "    d = os.path.join(list(s.submodule_search_locations)[0], 'source')\n"
      "    if os.path.isdir(os.path.join(d, 'include')): print(d)\n";
  ProcessOptions opts;
  opts.timeout_s = timeout_s;
  ProcessResult r = run_process({python.empty() ? python_executable() : python, "-c", script}, opts);
  if (!r.ok()) return "";
  return trim(r.out);
}

CutlassLookup locate_cutlass() {
  CutlassSearch s = CutlassSearch::from_environment();
  CutlassLookup first = locate_cutlass(s);
  if (first.found || !s.env_roots.empty()) return first;
  s.pip_source = find_cutlass_pip_source();
  return locate_cutlass(s);
}

}  // namespace kprof
