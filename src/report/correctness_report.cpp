#include "report/correctness_report.hpp"

#include "report/sanitizer_report.hpp"
#include "report/schema.hpp"

#include <fmt/format.h>

#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/enum_names.hpp"

namespace kprof {
namespace {

std::string preview(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt_sig(v[i], 6);
  return "[" + s + "]";
}

std::string status_word(bool pass) { return pass ? "PASS" : "FAIL"; }

/// The Status cell of an output: PASS / FAIL, or what a non-const buffer turned out to be.
std::string output_status(const OutputComparison& c) {
  if (c.role == BufferRole::UnchangedInput) return "PASS (input: unchanged)";
  if (c.role == BufferRole::WrittenInput && !c.pass) return "FAIL (input written)";
  return status_word(c.pass);
}

/// The names of BufferRole (core/enum_names.hpp).
constexpr auto kBufferRoleNames = enum_names<BufferRole>({{BufferRole::Output, "output"},
                                                          {BufferRole::UnchangedInput, "unchanged_input"},
                                                          {BufferRole::WrittenInput, "written_input"}},
                                                         "output");

const char* role_name(BufferRole r) { return kBufferRoleNames.name(r); }

/// The "Reference" section: how ref.py was called, buffers treated as inputs, PyTorch's float32
/// matmul precision, and the reduced-precision verdicts.
std::string reference_section(const CheckResult& r) {
  std::string md;
  for (const auto& n : r.reference_notes) md += "- " + n + "\n";
  if (!r.treated_as_inputs.empty()) {
    std::string names;
    for (const auto& n : r.treated_as_inputs) names += (names.empty() ? "`" : ", `") + n + "`";
    md += "- " + names +
          ": neither the kernel nor the reference changed it, so it was treated as an input and passes (declare it "
          "`const` in solve() to say so)\n";
  }
  const ReferencePrecision& p = r.reference_precision;
  if (p.known)
    md += fmt::format(
        "- PyTorch float32 matmul precision during the reference: allow_tf32={}, "
        "float32_matmul_precision='{}' ({}); cudnn.allow_tf32={} (convolutions only)\n",
        p.matmul_tf32 ? "True" : "False", p.float32_matmul_precision,
        p.reduced_matmul() ? "REDUCED: TF32 rounding" : "full float32", p.cudnn_tf32 ? "True" : "False");
  for (const auto& d : r.precision) md += "- " + precision_line(d) + "\n";
  return md.empty() ? "" : "\n## Reference\n\n" + md;
}

void output_details(std::string& md, const OutputComparison& c) {
  md += fmt::format("\n#### Output `{}` ({}, {} elements): {}\n\n", c.name, dtype_name(c.dtype), c.count,
                    output_status(c));
  md += fmt::format("- tolerance: atol={:g}, rtol={:g} ({}); rule |kernel - ref| <= atol + rtol*|ref|\n", c.tol.atol,
                    c.tol.rtol, c.tol.source);
  if (!c.reason.empty()) md += "- why: " + c.reason + "\n";
  md += "- kernel preview: " + preview(c.kernel_preview) + "\n";
  md += "- reference preview: " + preview(c.reference_preview) + "\n";
  if (!c.first_mismatches.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& m : c.first_mismatches)
      rows.push_back({std::to_string(m.index), fmt_sig(m.kernel, 8), fmt_sig(m.reference, 8),
                      fmt_sig(std::fabs(m.kernel - m.reference), 4)});
    md += "\nFirst mismatches:\n\n" + markdown_table({"index", "kernel", "reference", "|delta|"}, rows);
  }
  if (!c.first_never_written.empty()) {
    std::string idx;
    for (size_t i : c.first_never_written) idx += (idx.empty() ? "" : ", ") + std::to_string(i);
    md += fmt::format(
        "\nNever written ({} elements; first: {}): the kernel left these elements as they were, "
        "both in the random-filled run and in a run with outputs pre-filled with a sentinel.\n",
        c.never_written, idx);
  }
}

nlohmann::json output_json(const OutputComparison& c) {
  nlohmann::json mism = nlohmann::json::array();
  for (const auto& m : c.first_mismatches)
    mism.push_back({{"index", m.index}, {"kernel", m.kernel}, {"reference", m.reference}});
  return {{"name", c.name},
          {"dtype", dtype_name(c.dtype)},
          {"elements", c.count},
          {"pass", c.pass},
          {"role", role_name(c.role)},
          {"reason", c.reason},
          {"atol", c.tol.atol},
          {"rtol", c.tol.rtol},
          {"tolerance_source", c.tol.source},
          {"mismatches", c.mismatches},
          {"nonfinite", c.nonfinite},
          {"never_written", c.never_written},
          {"first_never_written", c.first_never_written},
          {"max_abs_delta", c.max_abs},
          {"max_abs_delta_index", c.max_abs_index},
          {"mean_abs_delta", c.mean_abs},
          {"mean_rel_error", c.mean_rel},
          {"reference_max_abs", c.ref_max_abs},
          {"rms_delta", c.rms_error},
          {"reference_rms", c.ref_rms},
          {"nonzero_deltas", c.nonzero_errors},
          {"atol_dwarfs_reference", c.atol_dwarfs_reference},
          {"first_mismatches", mism},
          {"kernel_preview", c.kernel_preview},
          {"reference_preview", c.reference_preview}};
}

}  // namespace

std::string correctness_markdown(const CheckResult& r, const HeaderRows& header) {
  std::string md = fmt::format("# Correctness: {}\n\n", status_word(r.pass));
  std::vector<std::vector<std::string>> hrows;
  for (const auto& [k, v] : header) hrows.push_back({k, v});
  md += markdown_table({"Item", "Value"}, hrows);
  if (r.fault) {
    md += fmt::format("\n## Kernel fault ({})\n\n{}\n\nWhat to do: {}\n", fault_kind_name(r.fault->kind),
                      r.fault->message, r.fault->hint);
    if (r.fault->context_lost) md += "\nThe CUDA context is lost after this fault: no output could be compared.\n";
  }
  for (size_t t = 0; t < r.trials.size(); ++t) {
    const auto& tr = r.trials[t];
    if (tr.outputs.empty() && r.fault && static_cast<int>(t) == r.fault_trial) continue;
    md += fmt::format("\n## Trial {} (seed {}): {}\n\n", t + 1, tr.seed, status_word(tr.pass));
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : tr.outputs)
      rows.push_back({c.name, dtype_name(c.dtype), std::to_string(c.count), fmt_sig(c.max_abs, 4),
                      fmt_sig(c.mean_abs, 4), fmt_sig(c.mean_rel, 4), std::to_string(c.mismatches),
                      std::to_string(c.never_written), output_status(c)});
    md += markdown_table({"Output", "dtype", "Elements", "Max |delta|", "Mean |delta|", "Mean rel. error", "Mismatches",
                          "Never written", "Status"},
                         rows);
    for (const auto& c : tr.outputs) output_details(md, c);
    for (const auto& g : tr.guards)
      md += fmt::format(
          "\n**Write outside buffer `{}`**: {} guard byte(s) {} the buffer were overwritten (first at "
          "byte offset {}). The kernel writes past its buffer's {}.\n",
          g.buffer, g.bytes_changed, g.before ? "before" : "after", g.first_offset, g.before ? "start" : "end");
    for (const auto& m : tr.modified_inputs) {
      std::string idx;
      for (size_t i : m.first) idx += (idx.empty() ? "" : ", ") + std::to_string(i);
      md += fmt::format("\n**Input `{}` was modified** ({} elements; first: {}){}.\n", m.name, m.elements, idx,
                        m.fails ? ": it is a const input, so this fails" : " (warning: it is not listed in outputs)");
    }
    for (const auto& c : tr.repeat)
      md += c.pass ? fmt::format(
                         "\nRepeat call on the same fresh inputs: `{}` matches the reference again (max |delta| "
                         "{}).\n",
                         c.name, fmt_sig(c.max_abs, 4))
                   : fmt::format("\n**Repeat call differs** (`{}`): {}; max |delta| {}.\n", c.name, c.reason,
                                 fmt_sig(c.max_abs, 4));
  }
  md += reference_section(r);
  md += sanitizer_markdown(r);
  if (!r.warnings.empty()) {
    md += "\n## Warnings\n\n";
    for (const auto& w : r.warnings) md += "- " + w + "\n";
  }
  return md;
}

nlohmann::json correctness_json(const CheckResult& r, const HeaderRows& header) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["status"] = status_word(r.pass);
  j["pass"] = r.pass;
  for (const auto& [k, v] : header) j["header"][k] = v;
  j["trials"] = nlohmann::json::array();
  for (const auto& tr : r.trials) {
    nlohmann::json t{{"seed", tr.seed},
                     {"pass", tr.pass},
                     {"outputs", nlohmann::json::array()},
                     {"guard_violations", nlohmann::json::array()},
                     {"modified_inputs", nlohmann::json::array()},
                     {"repeat_call", nlohmann::json::array()}};
    for (const auto& c : tr.outputs) t["outputs"].push_back(output_json(c));
    for (const auto& c : tr.repeat)
      t["repeat_call"].push_back({{"name", c.name},
                                  {"pass", c.pass},
                                  {"mismatches", c.mismatches},
                                  {"max_abs", c.max_abs},
                                  {"reason", c.reason}});
    for (const auto& g : tr.guards)
      t["guard_violations"].push_back({{"buffer", g.buffer},
                                       {"before", g.before},
                                       {"first_offset", g.first_offset},
                                       {"bytes_changed", g.bytes_changed}});
    for (const auto& m : tr.modified_inputs)
      t["modified_inputs"].push_back(
          {{"name", m.name}, {"elements", m.elements}, {"first", m.first}, {"fails", m.fails}});
    j["trials"].push_back(t);
  }
  if (r.fault)
    j["fault"] = {{"kind", fault_kind_name(r.fault->kind)},
                  {"cuda_error", r.fault->cuda_error},
                  {"message", r.fault->message},
                  {"hint", r.fault->hint},
                  {"context_lost", r.fault->context_lost}};
  else
    j["fault"] = nullptr;
  j["warnings"] = r.warnings;
  j["reference_notes"] = r.reference_notes;
  j["treated_as_inputs"] = r.treated_as_inputs;
  // Where the check's time went (CheckResult::phases_s), for `kprof run`'s speed.
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [name, s] : r.phases_s) phases[name] = s;
  j["phases_s"] = phases;
  j["host_copy_bytes"] = r.host_copy_bytes;
  const ReferencePrecision& p = r.reference_precision;
  j["reference_precision"] = p.known ? nlohmann::json{{"matmul_allow_tf32", p.matmul_tf32},
                                                      {"cudnn_allow_tf32", p.cudnn_tf32},
                                                      {"float32_matmul_precision", p.float32_matmul_precision},
                                                      {"reduced_matmul", p.reduced_matmul()}}
                                     : nlohmann::json(nullptr);
  j["precision_diagnosis"] = nlohmann::json::array();
  for (const auto& d : r.precision) {
    nlohmann::json e{{"output", d.output},
                     {"consistent", d.consistent},
                     {"relative_rms_error", d.relative_rms},
                     {"spread", d.spread},
                     {"nonzero_fraction", d.nonzero_fraction},
                     {"peak_to_rms", d.peak_to_rms},
                     {"why", d.why},
                     {"trials", d.trials},
                     {"rtol", d.rtol}};
    e["format"] = d.consistent ? nlohmann::json(d.format) : nlohmann::json(nullptr);
    e["unit_roundoff"] = d.consistent ? nlohmann::json(d.unit_roundoff) : nlohmann::json(nullptr);
    e["suggested_atol"] = d.suggested_atol ? nlohmann::json(*d.suggested_atol) : nlohmann::json(nullptr);
    j["precision_diagnosis"].push_back(e);
  }
  j["sanitizer"] = sanitizer_json(r);
  return j;
}

std::string correctness_console(const CheckResult& r) {
  std::string s;
  for (size_t t = 0; t < r.trials.size(); ++t) {
    for (const auto& c : r.trials[t].outputs) {
      s += fmt::format("  {} {:<12} trial {} max|delta| {:<10} mismatches {:<8} never-written {}{}\n",
                       styled(output_status(c), c.pass ? Style::Ok : Style::Fail), c.name, t + 1, fmt_sig(c.max_abs, 3),
                       c.mismatches, c.never_written, c.pass ? "" : "  (" + c.reason + ")");
    }
    for (const auto& g : r.trials[t].guards)
      s += fmt::format("  {} write {} buffer '{}' ({} guard bytes changed)\n", styled("FAIL", Style::Fail),
                       g.before ? "before the start of" : "past the end of", g.buffer, g.bytes_changed);
    for (const auto& c : r.trials[t].repeat)
      if (!c.pass)
        s +=
            fmt::format("  {} {:<12} trial {} repeat call: {}\n", styled("FAIL", Style::Fail), c.name, t + 1, c.reason);
    for (const auto& m : r.trials[t].modified_inputs)
      s += fmt::format("  {} input '{}' modified ({} elements)\n",
                       styled(m.fails ? "FAIL" : "WARN", m.fails ? Style::Fail : Style::Warn), m.name, m.elements);
  }
  if (r.fault)
    s += fmt::format("  {} {}: {}\n    hint: {}\n", styled("FAIL", Style::Fail), fault_kind_name(r.fault->kind),
                     r.fault->message, r.fault->hint);
  for (const auto& n : r.treated_as_inputs)
    s += "  note: '" + n +
         "' was changed by neither the kernel nor the reference: treated as an input (declare it const)\n";
  for (const auto& n : r.reference_notes) s += "  note: " + n + "\n";
  for (const auto& d : r.precision) s += "  " + styled("precision:", Style::Warn) + " " + precision_line(d) + "\n";
  s += sanitizer_console(r);
  for (const auto& w : r.warnings) s += "  " + styled("warning:", Style::Warn) + " " + w + "\n";
  return s;
}

}  // namespace kprof
