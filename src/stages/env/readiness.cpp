#include "stages/env/readiness.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/text.hpp"
#include "core/enum_names.hpp"
#include "core/tools.hpp"
#include "device/cupti_version.hpp"
#include "python/interpreter.hpp"

namespace kprof {
namespace {

CheckItem item(const std::string& name, bool required, ItemStatus st, const std::string& value,
               const std::string& why = "", const std::string& fix = "") {
  return CheckItem{name, required, st, value, why, fix};
}

std::string mhz(unsigned v) { return std::to_string(v) + " MHz"; }

/// True when `error` is "ModuleNotFoundError: No module named '<top>'" (the package itself is
/// absent, not one of its dependencies).
bool module_absent(const std::string& error, const std::string& top) {
  return error.find("No module named '" + top + "'") != std::string::npos;
}

std::string python_fix() {
  if (python_hosted())
    return "kprof runs on the Python it is installed in (" + python_executable() +
           "): install kprof into the environment that holds PyTorch (pip install kprof) and run its kprof";
  return "point KPROF_PYTHON at a working python3 (kprof was built with " + std::string(KPROF_PYTHON_EXECUTABLE) + ")";
}

CheckItem cuda_item(const EnvFacts& f) {
  const CudaVersions& v = f.gpu.versions;
  if (v.error.empty())
    return item("CUDA runtime", true, ItemStatus::Ok,
                "runtime " + format_cuda_version(v.runtime) + ", driver supports CUDA " +
                    format_cuda_version(v.driver_api) + ", " + std::to_string(v.device_count) + " device(s)");
  std::string fix = "run on a machine with an NVIDIA GPU and its driver installed (`nvidia-smi` must list the GPU)";
  if (v.driver_api > 0 && v.driver_api < v.runtime)
    fix = "update the NVIDIA driver: it supports CUDA " + format_cuda_version(v.driver_api) +
          " but kprof's runtime is CUDA " + format_cuda_version(v.runtime);
  else if (v.driver_api > 0)
    fix = "check `nvidia-smi` and CUDA_VISIBLE_DEVICES (it may hide every GPU)";
  return item("CUDA runtime", true, ItemStatus::Fail, "runtime " + format_cuda_version(v.runtime), v.error, fix);
}

CheckItem gpu_item(const EnvFacts& f) {
  const GpuInfo& g = f.gpu;
  std::string name = "GPU " + std::to_string(f.gpu_index);
  if (g.available)
    return item(name, true, ItemStatus::Ok,
                g.name + ", " + g.arch + " (CC " + std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) +
                    "), " + std::to_string(g.sm_count) + " SMs, " + fmt_bytes(static_cast<double>(g.memory_bytes)) +
                    ", L2 " + fmt_bytes(static_cast<double>(g.l2_bytes)));
  if (!g.versions.error.empty())
    return item(name, true, ItemStatus::Fail, "", "no CUDA driver/GPU (see CUDA runtime)",
                "fix the CUDA runtime item first");
  return item(name, true, ItemStatus::Fail, "", g.error,
              "pick --gpu 0.." + std::to_string(g.versions.device_count - 1) + " (`nvidia-smi -L` lists them)");
}

CheckItem nvml_item(const EnvFacts& f) {
  const GpuInfo& g = f.gpu;
  if (g.clocks) {
    const GpuClocks& c = *g.clocks;
    return item("NVML clocks", false, ItemStatus::Ok,
                "driver " + g.driver_version + ", SM " + mhz(c.sm_mhz) + " (max " + mhz(c.sm_max_mhz) + "), memory " +
                    mhz(c.mem_mhz) + " (max " + mhz(c.mem_max_mhz) + ")");
  }
  std::string why = g.nvml_error.empty() ? "NVML gave no clocks" : g.nvml_error;
  return item("NVML clocks", false, g.available ? ItemStatus::Warn : ItemStatus::Skip, "", why,
              "clocks are left out of reports; NVML (libnvidia-ml.so.1) comes with the NVIDIA driver");
}

CheckItem tool_item(const ToolInfo& t, bool required, const std::string& install, const std::string& needed_for) {
  if (t.ok())
    return item(t.name, required, ItemStatus::Ok,
                (t.version.empty() ? "version unknown" : t.version) + " (" + t.path + ")");
  if (t.path.empty())
    return item(t.name, required, required ? ItemStatus::Fail : ItemStatus::Info, "not found", t.error,
                install + (needed_for.empty() ? "" : "; needed for " + needed_for));
  return item(t.name, required, required ? ItemStatus::Fail : ItemStatus::Warn, t.path, t.error,
              "run `" + t.path + " --version` by hand; reinstall it if it fails");
}

CheckItem counters_item(const EnvFacts& f) {
  const NcuCounters& c = f.counters;
  if (!c.checked)
    return item("ncu counters", true, ItemStatus::Skip, "", f.counters_skipped, "fix the items above first");
  if (c.readable)
    return item("ncu counters", true, ItemStatus::Ok,
                std::string("readable (") + kNcuProbeMetric + " = " + fmt_sig(c.cycles, 6) + " cycles)");
  return item("ncu counters", true, ItemStatus::Fail, "not readable", c.error, c.fix);
}

std::string not_probed(const EnvFacts& f, const std::string& what) {
  return "not probed: " + (f.python.error.empty() ? "the Python probe stopped before " + what : f.python.error);
}

CheckItem torch_item(const EnvFacts& f) {
  const TorchInfo& t = f.python.torch;
  std::string install = "install a CUDA build of PyTorch into " + f.python.path +
                        " (https://pytorch.org/get-started/locally/)" +
                        (python_hosted() ? std::string(", the Python kprof is installed in")
                                         : std::string(", or point KPROF_PYTHON at a Python that has one"));
  if (!t.probed)
    return item("PyTorch", true, ItemStatus::Fail, "", not_probed(f, "torch"),
                f.python.ran ? "raise --timeout" : python_fix());
  if (!t.importable) return item("PyTorch", true, ItemStatus::Fail, "not importable", t.error, install);
  std::string value = t.version + ", CUDA build " + (t.cuda_build.empty() ? "none" : t.cuda_build);
  if (t.cuda_build.empty())
    return item("PyTorch", true, ItemStatus::Fail, value, "CPU-only build of PyTorch (torch.version.cuda is None)",
                install);
  if (!t.cuda_available) {
    if (!f.gpu.available)
      return item("PyTorch", true, ItemStatus::Warn, value + ", torch.cuda.is_available() False",
                  "torch cannot use a GPU here: " + f.gpu.error, "fix the CUDA runtime / GPU items first");
    return item("PyTorch", true, ItemStatus::Fail, value + ", torch.cuda.is_available() False",
                "torch cannot see GPU " + std::to_string(f.gpu_index) + " although CUDA does" +
                    (t.error.empty() ? "" : " (" + t.error + ")"),
                "install a torch build for CUDA <= " + format_cuda_version(f.gpu.versions.driver_api) +
                    " (what this driver supports), or update the driver");
  }
  return item("PyTorch", true, ItemStatus::Ok,
              value + ", cuda available" + (t.device.empty() ? "" : " (" + t.device + ")"));
}

CheckItem package_item(const EnvFacts& f, const std::string& name, const PyPackage& p, const std::string& top,
                       const std::string& install) {
  if (!p.probed) return item(name, false, ItemStatus::Skip, "", not_probed(f, name));
  if (p.importable) return item(name, false, ItemStatus::Ok, p.version.empty() ? "version unknown" : p.version);
  if (module_absent(p.error, top)) return item(name, false, ItemStatus::Info, "not installed", p.error, install);
  return item(name, false, ItemStatus::Warn, p.version.empty() ? "import fails" : p.version + ", import fails", p.error,
              install + " (reinstall: the import fails)");
}

/// CUPTI: ok with 13.4+ (the GPU-duration pass also resets the L2 before each kernel, CUPTI's
/// cache control as ncu's --cache-control all), info otherwise (kprof's L2 flush alone: on the H200
/// within one 32 ns tick of the reset for a 6.5 us kernel, docs/gpu-runs.md), skip or warn when
/// CUPTI cannot answer (PyPI's libcupti needs the CUDA driver).
CheckItem cupti_item(const EnvFacts& f) {
  const std::string newer =
      "optional, for the L2 reset: pip install --target ~/.cache/kprof/cupti 'nvidia-cuda-cupti>=13.4,<14' (kprof "
      "loads it from there first; a source build: bash scripts/setup.sh --cupti)";
  if (f.cupti_dir.empty() && f.cupti_version == 0)
    return item("CUPTI", false, f.gpu.available ? ItemStatus::Warn : ItemStatus::Skip, "libcupti.so.13 not found",
                f.cupti_tried.empty() ? std::string() : fmt::format("tried {}", fmt::join(f.cupti_tried, "; ")),
                "install PyTorch's CUDA 13 wheels (nvidia-cuda-cupti) or the CUDA toolkit, or set KPROF_CUPTI_DIR "
                "to a folder holding libcupti.so.13");
  const std::string where =
      f.cupti_dir.empty() ? "" : " (" + f.cupti_dir + (f.cupti_source.empty() ? "" : ", " + f.cupti_source) + ")";
  if (f.cupti_version == 0)
    return item("CUPTI", false, f.gpu.available ? ItemStatus::Warn : ItemStatus::Skip, "version unknown" + where,
                "cuptiGetVersion failed (a libcupti from PyPI answers only when the CUDA driver is installed)",
                f.gpu.available ? "check that the libcupti kprof loads matches the CUDA driver" : "");
  const std::string v = cupti_version_text(f.cupti_version) + where;
  if (cupti_has_cache_control(f.cupti_version))
    return item("CUPTI", false, ItemStatus::Ok, v + ", resets the L2 before each timed kernel");
  return item("CUPTI", false, ItemStatus::Info, v,
              "no range-profiler cache control (CUPTI 13.4+): kernel times rely on kprof's L2 flush alone", newer);
}

CheckItem cutlass_item(const EnvFacts& f) {
  const CutlassLookup& c = f.cutlass;
  if (c.found)
    return item("CUTLASS headers", false, ItemStatus::Ok,
                c.found->version + " (" + c.found->include_dir + ", from " + c.found->source + ")");
  bool misconfigured = c.error.find(" has no ") != std::string::npos;
  return item("CUTLASS headers", false, misconfigured ? ItemStatus::Warn : ItemStatus::Info, "not found", c.error,
              c.fix + "; needed for cutlass kernels");
}

/// The implementation table, one row per language (language_rows()): a CUDA-source language needs
/// nvcc (and the CUTLASS C++ headers when its row says so), a Python-module one its probe module.
std::vector<ImplReadiness> implementations(const EnvFacts& f) {
  std::vector<ImplReadiness> v;
  std::string nvcc = f.nvcc.ok() ? "nvcc " + f.nvcc.version : f.nvcc.error;
  std::string cut = f.cutlass.found ? "CUTLASS " + f.cutlass.found->version : f.cutlass.error;
  for (const auto& row : language_rows()) {
    if (row.file == FileKind::CudaSource && row.cutlass_headers)
      v.push_back({row.impl, f.nvcc.ok() && f.cutlass.found.has_value(), "nvcc executable plus CUTLASS C++ headers",
                   nvcc + "; " + cut});
    else if (row.file == FileKind::CudaSource)
      v.push_back({row.impl, f.nvcc.ok(), "nvcc executable", nvcc});
    else {
      const PyPackage& p = f.python.language(row.impl);
      std::string what = row.probe_module;
      std::string detail = p.importable ? what + " " + (p.version.empty() ? "(version unknown)" : p.version)
                           : p.probed   ? p.error
                                        : not_probed(f, what);
      v.push_back({row.impl, p.importable, "importable " + what + " Python package", detail});
    }
  }
  return v;
}

}  // namespace

/// The names of ItemStatus (core/enum_names.hpp).
constexpr auto kItemStatusNames = enum_names<ItemStatus>({{ItemStatus::Ok, "ok"},
                                                          {ItemStatus::Warn, "warn"},
                                                          {ItemStatus::Fail, "FAIL"},
                                                          {ItemStatus::Info, "info"},
                                                          {ItemStatus::Skip, "skip"}},
                                                         "?");

std::string item_status_name(ItemStatus s) { return kItemStatusNames.name(s); }

EnvReport assess_env(const EnvFacts& f) {
  EnvReport r;
  r.facts = f;
  r.items.push_back(cuda_item(f));
  r.items.push_back(gpu_item(f));
  r.items.push_back(nvml_item(f));
  r.items.push_back(tool_item(
      f.ncu, true, "install Nsight Compute (the CUDA toolkit's cuda-nsight-compute package) and put ncu on PATH", ""));
  r.items.push_back(counters_item(f));
  r.items.push_back(cupti_item(f));
  r.items.push_back(tool_item(f.nvcc, false, "install the CUDA toolkit or add its bin/ to PATH",
                              language_names_of(FileKind::CudaSource, " and ") + " kernels"));
  r.items.push_back(tool_item(f.sanitizer, false, "install the CUDA toolkit's compute-sanitizer",
                              "memory checks of a kernel (optional)"));
  if (f.python.ran)
    r.items.push_back(item("Python", true, ItemStatus::Ok, f.python.version + " (" + f.python.path + ")"));
  else
    r.items.push_back(item("Python", true, ItemStatus::Fail, f.python.path, f.python.error, python_fix()));
  r.items.push_back(torch_item(f));
  for (const auto& row : language_rows())
    if (!row.probe_module.empty())
      r.items.push_back(package_item(f, row.display, f.python.language(row.impl),
                                     row.probe_module.substr(0, row.probe_module.find('.')),
                                     row.pip_hint + "; needed for " + row.name + " kernels"));
  CheckItem ns = package_item(f, "nsight-python", f.python.nsight_python, "nsight", "");
  if (ns.status == ItemStatus::Info || ns.status == ItemStatus::Warn) {
    ns.status = ItemStatus::Info;
    ns.value = "not installed (optional: kprof drives ncu itself)";
    ns.fix.clear();
  }
  r.items.push_back(ns);
  r.items.push_back(cutlass_item(f));

  r.implementations = implementations(f);
  std::string ready_list;
  for (const auto& i : r.implementations)
    if (i.ready) ready_list += (ready_list.empty() ? "" : ", ") + implementation_name(i.impl);
  if (!ready_list.empty())
    r.items.push_back(item("Implementation toolchain", true, ItemStatus::Ok, ready_list));
  else
    r.items.push_back(item("Implementation toolchain", true, ItemStatus::Fail, "none",
                           "none of " + language_names() + " is ready",
                           "install nvcc (cuda-cpp) or `pip install triton` (triton); see the table below"));

  r.ready = true;
  for (const auto& it : r.items) {
    if (!it.required || it.status == ItemStatus::Ok) continue;
    r.ready = false;
    if (it.status == ItemStatus::Fail) r.blockers.push_back(it.name + ": " + it.why);
  }
  return r;
}

}  // namespace kprof
