#include "report/env_report.hpp"

#include "report/schema.hpp"

#include <fmt/format.h>
#include <gnu/libc-version.h>

#include "core/fs.hpp"
#include "core/platform.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "device/cuda.hpp"
#include "device/cupti_version.hpp"

namespace kprof {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }
std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string reasons_text(uint64_t mask) {
  // nvmlClocksEventReasons bits (NVML API reference, "NvmlClocksEventReasons").
  static const std::pair<uint64_t, const char*> bits[] = {
      {0x1, "GpuIdle"},
      {0x2, "ApplicationsClocksSetting (user-defined clocks / lock)"},
      {0x4, "SwPowerCap"},
      {0x8, "HwSlowdown"},
      {0x10, "SyncBoost"},
      {0x20, "SwThermalSlowdown"},
      {0x40, "HwThermalSlowdown"},
      {0x80, "HwPowerBrakeSlowdown"},
      {0x100, "DisplayClockSetting"}};
  if (mask == 0) return "none";
  std::string s;
  for (const auto& [bit, name] : bits)
    if (mask & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  return fmt::format("0x{:x} ({})", mask, s.empty() ? "unknown bits" : s);
}

std::string pkg_note(const PyPackage& p) { return p.importable ? "" : p.error; }

}  // namespace

std::string json_path_for(const std::string& md_path) {
  std::string base = md_path;
  auto slash = base.find_last_of('/');
  auto dot = base.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) base = base.substr(0, dot);
  return base + ".json";
}

std::string env_markdown(const EnvReport& r) {
  const EnvFacts& f = r.facts;
  const GpuInfo& g = f.gpu;
  std::string md = "# kprof environment check\n\n";
  md += markdown_table({"", ""}, {{"Date", f.date},
                                  {"Host", f.host},
                                  {"kprof", f.kprof_version},
                                  {"Selected GPU", "--gpu " + std::to_string(f.gpu_index)},
                                  {"Result", r.ready ? "**READY**" : "**NOT READY**"}});
  if (!r.ready) {
    md += "\nNot ready because:\n\n";
    for (const auto& b : r.blockers) md += "- " + b + "\n";
    if (r.blockers.empty()) md += "- a required item could not be checked (see below)\n";
  }
  md += "\n## Checks\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& it : r.items)
    rows.push_back({it.name, it.required ? "yes" : "no", item_status_name(it.status), or_dash(it.value),
                    or_dash(it.why), or_dash(it.fix)});
  md += markdown_table({"Item", "Required", "Status", "Found", "Why", "What to do"}, rows);

  md +=
      "\n## Implementations\n\nAt least one toolchain must be ready (the original kernel-profile scripts' readiness "
      "table); the GPU, driver and "
      "CUDA runtime items above decide whether it runs.\n\n";
  rows.clear();
  for (const auto& i : r.implementations)
    rows.push_back({implementation_name(i.impl), i.ready ? "ready" : "not ready", i.requirement, or_dash(i.detail)});
  md += markdown_table({"Implementation", "Ready", "Requirement", "Detail"}, rows);

  md += "\n## GPU " + std::to_string(f.gpu_index) + "\n\n";
  rows.clear();
  if (g.available) {
    rows.push_back({"Name", g.name});
    rows.push_back(
        {"Compute capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) + " (" + g.arch + ")"});
    rows.push_back({"SMs", std::to_string(g.sm_count)});
    rows.push_back({"Memory", fmt_bytes(static_cast<double>(g.memory_bytes))});
    rows.push_back({"L2 cache", fmt_bytes(static_cast<double>(g.l2_bytes))});
    rows.push_back({"PCI bus id", or_dash(g.pci_bus_id)});
  } else {
    rows.push_back({"Status", "not available: " + g.error});
  }
  rows.push_back({"CUDA runtime (kprof's)", format_cuda_version(g.versions.runtime)});
  rows.push_back({"Driver needed", driver_needed(g.versions.runtime)});
  rows.push_back({"CUDA driver API", format_cuda_version(g.versions.driver_api)});
  rows.push_back({"Device count", std::to_string(g.versions.device_count)});
  rows.push_back({"Driver version (NVML)", or_dash(g.driver_version)});
  if (g.clocks) {
    rows.push_back({"SM clock (current / max)", fmt::format("{} / {} MHz", g.clocks->sm_mhz, g.clocks->sm_max_mhz)});
    rows.push_back(
        {"Memory clock (current / max)", fmt::format("{} / {} MHz", g.clocks->mem_mhz, g.clocks->mem_max_mhz)});
  } else {
    rows.push_back({"Clocks", "unknown: " + or_dash(g.nvml_error)});
  }
  if (g.clock_reasons) rows.push_back({"Clock event reasons (NVML)", reasons_text(*g.clock_reasons)});
  md += markdown_table({"Property", "Value"}, rows);

  md += "\n## Tools\n\n";
  rows.clear();
  for (const ToolInfo* t : {&f.nvcc, &f.ncu, &f.sanitizer})
    rows.push_back({t->name, or_dash(t->path), or_dash(t->version), or_dash(t->error)});
  md += markdown_table({"Tool", "Path", "Version", "Problem"}, rows);
  md += "\nncu counter probe: ";
  if (!f.counters.checked)
    md += f.counters_skipped + "\n";
  else
    md += (f.counters.readable ? "counters readable" : "FAILED: " + f.counters.error) +
          (f.counters.probed_in_session ? " (kprof's probe kernel, the first launch of the run's ncu session)" : "") +
          "  \nCommand: `" + f.counters.command + "`\n";

  md +=
      "\n## Platform\n\nThis machine: glibc " + std::string(gnu_get_libc_version()) + ". " + kPlatformSupported + "\n";
  md += "\n## Python\n\nInterpreter: `" + f.python.path + "` " + or_dash(f.python.version) +
        (f.python.error.empty() ? "" : "  \nProbe problem: " + f.python.error) + "\n\n";
  const TorchInfo& t = f.python.torch;
  rows = {{"torch", t.probed ? yes_no(t.importable) : "not probed", or_dash(t.version),
           t.importable ? "CUDA build " + (t.cuda_build.empty() ? std::string("none") : t.cuda_build) +
                              ", torch.cuda.is_available() " + (t.cuda_available ? "True" : "False") +
                              (t.error.empty() ? "" : ": " + t.error)
                        : or_dash(t.error)},
          {"nsight (nsight-python, optional)",
           f.python.nsight_python.probed ? yes_no(f.python.nsight_python.importable) : "not probed",
           or_dash(f.python.nsight_python.version), or_dash(pkg_note(f.python.nsight_python))},
          {"nvidia-cutlass (C++ headers)", f.python.cutlass_pip_source.empty() ? "no" : "yes",
           or_dash(f.python.cutlass_pip_version), or_dash(f.python.cutlass_pip_source)}};
  // The languages' packages, one row per language with a probe module, after torch.
  size_t at = 1;
  for (const auto& row : language_rows()) {
    if (row.probe_module.empty()) continue;
    const PyPackage& p = f.python.language(row.impl);
    std::string name = row.probe_module + (row.distribution == row.probe_module ? "" : " (" + row.distribution + ")");
    rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(at++),
                {name, p.probed ? yes_no(p.importable) : "not probed", or_dash(p.version), or_dash(pkg_note(p))});
  }
  md += markdown_table({"Package", "Importable", "Version", "Note"}, rows);

  md += "\n## CUTLASS C++ headers\n\n";
  if (f.cutlass.found) {
    const CutlassInstall& c = *f.cutlass.found;
    md += markdown_table({"", ""}, {{"Version", c.version},
                                    {"include", c.include_dir},
                                    {"tools/util/include", or_dash(c.util_include_dir)},
                                    {"Found through", c.source}});
  } else {
    md += "Not found: " + f.cutlass.error + ".  \nWhat to do: " + f.cutlass.fix + ".\n";
  }

  md += "\n## CUDA environment variables\n\n";
  if (f.env_vars.empty()) {
    md += "None set.\n";
  } else {
    rows.clear();
    for (const auto& [k, v] : f.env_vars) rows.push_back({k, v});
    md += markdown_table({"Variable", "Value"}, rows);
  }
  return md;
}

nlohmann::json env_json(const EnvReport& r) {
  using nlohmann::json;
  const EnvFacts& f = r.facts;
  const GpuInfo& g = f.gpu;
  json items = json::array();
  for (const auto& it : r.items)
    items.push_back({{"name", it.name},
                     {"required", it.required},
                     {"status", to_lower(item_status_name(it.status))},
                     {"value", it.value},
                     {"why", it.why},
                     {"fix", it.fix}});
  json impls = json::array();
  for (const auto& i : r.implementations)
    impls.push_back({{"name", implementation_name(i.impl)},
                     {"ready", i.ready},
                     {"requirement", i.requirement},
                     {"detail", i.detail}});
  json gpu = {{"index", f.gpu_index},
              {"available", g.available},
              {"error", g.error},
              {"name", g.name},
              {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
              {"arch", g.arch},
              {"sm_count", g.sm_count},
              {"memory_bytes", g.memory_bytes},
              {"l2_bytes", g.l2_bytes},
              {"pci_bus_id", g.pci_bus_id},
              {"cuda_runtime", format_cuda_version(g.versions.runtime)},
              {"cuda_driver_api", format_cuda_version(g.versions.driver_api)},
              {"device_count", g.versions.device_count},
              {"driver_version", g.driver_version},
              {"nvml_index", g.nvml_index},
              {"nvml_error", g.nvml_error}};
  if (g.clocks)
    gpu["clocks_mhz"] = {{"sm", g.clocks->sm_mhz},
                         {"sm_max", g.clocks->sm_max_mhz},
                         {"mem", g.clocks->mem_mhz},
                         {"mem_max", g.clocks->mem_max_mhz}};
  else
    gpu["clocks_mhz"] = nullptr;
  gpu["clock_event_reasons"] = g.clock_reasons ? json(*g.clock_reasons) : json(nullptr);
  auto tool = [](const ToolInfo& t) {
    return json{{"path", t.path}, {"version", t.version}, {"ok", t.ok()}, {"error", t.error}};
  };
  json ncu = tool(f.ncu);
  ncu["counters"] = {
      {"checked", f.counters.checked},
      {"readable", f.counters.readable},
      {"sm_cycles_elapsed_avg", f.counters.checked && f.counters.readable && !f.counters.probed_in_session
                                    ? json(f.counters.cycles)
                                    : json(nullptr)},
      {"probed_in_session", f.counters.probed_in_session},
      {"permission_denied", f.counters.permission_denied},
      {"no_kernels", f.counters.no_kernels},
      {"error", f.counters.checked ? f.counters.error : f.counters_skipped},
      {"fix", f.counters.fix},
      {"command", f.counters.command}};
  auto pkg = [](const PyPackage& p) {
    return json{{"probed", p.probed}, {"importable", p.importable}, {"version", p.version}, {"error", p.error}};
  };
  json torch = pkg(f.python.torch);
  torch["cuda_build"] = f.python.torch.cuda_build;
  torch["cuda_available"] = f.python.torch.cuda_available;
  torch["device"] = f.python.torch.device;
  json python = {
      {"path", f.python.path},
      {"ran", f.python.ran},
      {"version", f.python.version},
      {"error", f.python.error},
      {"torch", torch},
      {"nsight_python", pkg(f.python.nsight_python)},
      {"nvidia_cutlass", {{"source", f.python.cutlass_pip_source}, {"version", f.python.cutlass_pip_version}}}};
  for (const auto& row : language_rows())  // "triton", "cute_dsl": one key per language with a probe
    if (!row.probe_key.empty()) python[row.probe_key] = pkg(f.python.language(row.impl));
  json cutlass = {{"found", f.cutlass.found.has_value()}, {"error", f.cutlass.error}, {"fix", f.cutlass.fix}};
  if (f.cutlass.found)
    cutlass.update({{"version", f.cutlass.found->version},
                    {"include_dir", f.cutlass.found->include_dir},
                    {"util_include_dir", f.cutlass.found->util_include_dir},
                    {"source", f.cutlass.found->source}});
  json env = json::object();
  for (const auto& [k, v] : f.env_vars) env[k] = v;
  return {{"schema_version", kReportSchemaVersion},
          {"schema", "kprof.env/1"},
          {"date", f.date},
          {"host", f.host},
          {"kprof_version", f.kprof_version},
          {"ready", r.ready},
          {"blockers", r.blockers},
          {"items", items},
          {"implementations", impls},
          {"gpu", gpu},
          {"tools", {{"nvcc", tool(f.nvcc)}, {"ncu", ncu}, {"compute_sanitizer", tool(f.sanitizer)}}},
          {"python", python},
          {"cutlass", cutlass},
          {"cupti",
           {{"api_version", f.cupti_version ? json(f.cupti_version) : json(nullptr)},
            {"version", f.cupti_version ? json(cupti_version_text(f.cupti_version)) : json(nullptr)},
            {"dir", f.cupti_dir},
            {"source", f.cupti_source},
            {"cache_control", cupti_has_cache_control(f.cupti_version)}}},
          {"env", env}};
}

std::string env_summary(const EnvReport& r, bool color) {
  auto st = [&](const std::string& s, Style style) { return color ? styled(s, style, stdout) : s; };
  std::string out =
      st("kprof env", Style::Bold) + " (GPU " + std::to_string(r.facts.gpu_index) + ", host " + r.facts.host + ")\n";
  for (const auto& it : r.items) {
    Style style = it.status == ItemStatus::Ok     ? Style::Ok
                  : it.status == ItemStatus::Fail ? Style::Fail
                  : it.status == ItemStatus::Warn ? Style::Warn
                                                  : Style::Dim;
    std::string tag = fmt::format("{:<5}", item_status_name(it.status));
    out += "  " + st(tag, style) + " " + fmt::format("{:<22}", it.name + (it.required ? " *" : "")) + " " +
           (it.value.empty() ? "" : it.value) + "\n";
    if (it.status != ItemStatus::Ok && !it.why.empty() && it.status != ItemStatus::Info)
      out += "        why: " + it.why + "\n";
    if ((it.status == ItemStatus::Fail || it.status == ItemStatus::Warn) && !it.fix.empty())
      out += "        fix: " + it.fix + "\n";
  }
  out += "  (* required)\nImplementation toolchains (the GPU items above decide whether they run):";
  for (const auto& i : r.implementations)
    out += " " + implementation_name(i.impl) + " " + (i.ready ? st("ready", Style::Ok) : st("not ready", Style::Dim)) +
           ";";
  out.pop_back();
  out += "\n";
  if (r.ready) {
    out += st("READY", Style::Ok) + "\n";
  } else {
    out += st("NOT READY", Style::Fail);
    if (!r.blockers.empty())
      out +=
          ": " + r.blockers.front() + (r.blockers.size() > 1 ? fmt::format(" (+{} more)", r.blockers.size() - 1) : "");
    out += "\n";
  }
  return out;
}

}  // namespace kprof
