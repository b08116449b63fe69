#include "stages/env/python_probe.hpp"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/subprocess.hpp"
#include "core/text.hpp"

namespace kprof {

std::string python_probe_script() {
  nlohmann::json langs = nlohmann::json::array();
  for (const auto& r : language_rows())
    if (!r.probe_module.empty()) langs.push_back({r.probe_key, r.probe_module, r.distribution});
  std::string script = R"PY(
import json, sys
def emit(key, **kw):
    kw["key"] = key
    sys.stdout.write("KPROF_PROBE " + json.dumps(kw) + "\n")
    sys.stdout.flush()
def dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None
def err(e):
    text = (type(e).__name__ + ": " + str(e)).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:300]
emit("python", version=sys.version.split()[0], executable=sys.executable)
try:
    import torch
    info = dict(importable=True, version=str(torch.__version__), cuda_build=torch.version.cuda)
    try:
        info["cuda_available"] = bool(torch.cuda.is_available())
        if info["cuda_available"]:
            info["device"] = torch.cuda.get_device_name(0)
    except Exception as e:
        info["cuda_available"] = False
        info["cuda_error"] = err(e)
    emit("torch", **info)
except BaseException as e:
    emit("torch", importable=False, error=err(e))
import importlib
for key, module, dist in json.loads(KPROF_LANGUAGES):
    try:
        m = importlib.import_module(module)
        emit(key, importable=True, version=dist_version(dist) or getattr(m, "__version__", None))
    except BaseException as e:
        emit(key, importable=False, error=err(e), version=dist_version(dist))
try:
    import nsight
    emit("nsight_python", importable=True, version=dist_version("nsight-python"))
except BaseException as e:
    emit("nsight_python", importable=False, error=err(e), version=dist_version("nsight-python"))
try:
    import importlib.util, os
    spec = importlib.util.find_spec("cutlass_library")
    src = ""
    if spec is not None and spec.submodule_search_locations:
        cand = os.path.join(list(spec.submodule_search_locations)[0], "source")
        if os.path.isdir(os.path.join(cand, "include")):
            src = cand
    emit("cutlass_pip", source=src, version=dist_version("nvidia-cutlass"))
except BaseException as e:
    emit("cutlass_pip", source="", error=err(e))
emit("done")
)PY";
  // The rows' list as a Python string literal: a JSON text in a raw string (no quote in the names).
  return "KPROF_LANGUAGES = r'" + langs.dump() + "'\n" + script;
}

const PyPackage& PythonInfo::language(Implementation impl) const {
  static const PyPackage unprobed;
  auto it = languages.find(language_row(impl).probe_key);
  return it == languages.end() ? unprobed : it->second;
}

PyPackage& PythonInfo::language(Implementation impl) { return languages[language_row(impl).probe_key]; }

namespace {

std::string str_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : "";
}

void fill_package(PyPackage& p, const nlohmann::json& j) {
  p.probed = true;
  p.importable = j.value("importable", false);
  p.version = str_field(j, "version");
  p.error = str_field(j, "error");
}

}  // namespace

PythonInfo parse_python_probe(const std::string& out) {
  PythonInfo info;
  const std::string tag = "KPROF_PROBE ";
  for (const auto& raw : split(out, '\n')) {
    std::string line = trim(raw);
    if (!starts_with(line, tag)) continue;
    nlohmann::json j = nlohmann::json::parse(line.substr(tag.size()), nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    std::string key = str_field(j, "key");
    if (key == "python") {
      info.ran = true;
      info.version = str_field(j, "version");
      std::string exe = str_field(j, "executable");
      if (!exe.empty()) info.path = exe;
    } else if (key == "torch") {
      fill_package(info.torch, j);
      info.torch.cuda_build = str_field(j, "cuda_build");
      info.torch.cuda_available = j.value("cuda_available", false);
      info.torch.device = str_field(j, "device");
      std::string cuda_err = str_field(j, "cuda_error");
      if (!cuda_err.empty() && info.torch.error.empty()) info.torch.error = cuda_err;
    } else if (std::any_of(language_rows().begin(), language_rows().end(),
                           [&](const LanguageRow& r) { return !r.probe_key.empty() && r.probe_key == key; })) {
      fill_package(info.languages[key], j);
    } else if (key == "nsight_python") {
      fill_package(info.nsight_python, j);
    } else if (key == "cutlass_pip") {
      info.cutlass_pip_source = str_field(j, "source");
      info.cutlass_pip_version = str_field(j, "version");
    }
  }
  return info;
}

PythonInfo probe_python(double timeout_s, const std::string& python) {
  std::string exe = python.empty() ? python_executable() : python;
  ProcessOptions opts;
  opts.timeout_s = timeout_s;
  opts.env["PYTHONDONTWRITEBYTECODE"] = "1";
  ProcessResult r = run_process({exe, "-c", python_probe_script()}, opts);
  PythonInfo info = parse_python_probe(r.out);
  if (info.path.empty()) info.path = exe;
  if (r.not_found) {
    info.error = "cannot run the Python kprof embeds (" + exe + "): " + trim(r.err);
  } else if (r.timed_out) {
    info.error = "the Python probe (" + exe + ") was stopped after its time limit of " + fmt_sig(timeout_s, 3) +
                 " s (an import hung or is very slow)";
  } else if (!info.ran || r.out.find("\"key\": \"done\"") == std::string::npos) {
    std::string tail = trim(r.err);
    auto lines = split(tail, '\n');
    info.error = "the Python probe (" + exe + ") failed (exit " + std::to_string(r.exit_code) + ")" +
                 (lines.empty() || tail.empty() ? "" : ": " + trim(lines.back()));
  }
  return info;
}

}  // namespace kprof
