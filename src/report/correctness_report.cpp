#include "report/correctness_report.hpp"

#include <fmt/format.h>

#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

std::string preview(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt_sig(v[i], 6);
  return "[" + s + "]";
}

std::string status_word(bool pass) { return pass ? "PASS" : "FAIL"; }

void output_details(std::string& md, const OutputComparison& c) {
  md += fmt::format("\n#### Output `{}` ({}, {} elements): {}\n\n", c.name, dtype_name(c.dtype), c.count,
                    status_word(c.pass));
  md += fmt::format("- tolerance: atol={:g}, rtol={:g} ({}); rule |kernel - ref| <= atol + rtol*|ref|\n",
                    c.tol.atol, c.tol.rtol, c.tol.source);
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
    md += fmt::format("\nNever written ({} elements; first: {}): the kernel left these elements as they were, "
                      "both in the random-filled run and in a run with outputs pre-filled with a sentinel.\n",
                      c.never_written, idx);
  }
}

nlohmann::json output_json(const OutputComparison& c) {
  nlohmann::json mism = nlohmann::json::array();
  for (const auto& m : c.first_mismatches) mism.push_back({{"index", m.index}, {"kernel", m.kernel}, {"reference", m.reference}});
  return {{"name", c.name},
          {"dtype", dtype_name(c.dtype)},
          {"elements", c.count},
          {"pass", c.pass},
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
      rows.push_back({c.name, dtype_name(c.dtype), std::to_string(c.count), fmt_sig(c.max_abs, 4), fmt_sig(c.mean_abs, 4),
                      fmt_sig(c.mean_rel, 4), std::to_string(c.mismatches), std::to_string(c.never_written),
                      status_word(c.pass)});
    md += markdown_table({"Output", "dtype", "Elements", "Max |delta|", "Mean |delta|", "Mean rel. error",
                          "Mismatches", "Never written", "Status"},
                         rows);
    for (const auto& c : tr.outputs) output_details(md, c);
    for (const auto& g : tr.guards)
      md += fmt::format("\n**Write outside buffer `{}`**: {} guard byte(s) {} the buffer were overwritten (first at "
                        "byte offset {}). The kernel writes past its buffer's {}.\n",
                        g.buffer, g.bytes_changed, g.before ? "before" : "after", g.first_offset,
                        g.before ? "start" : "end");
    for (const auto& m : tr.modified_inputs) {
      std::string idx;
      for (size_t i : m.first) idx += (idx.empty() ? "" : ", ") + std::to_string(i);
      md += fmt::format("\n**Input `{}` was modified** ({} elements; first: {}){}.\n", m.name, m.elements, idx,
                        m.fails ? ": it is a const input, so this fails" : " (warning: it is not listed in outputs)");
    }
  }
  if (!r.warnings.empty()) {
    md += "\n## Warnings\n\n";
    for (const auto& w : r.warnings) md += "- " + w + "\n";
  }
  return md;
}

nlohmann::json correctness_json(const CheckResult& r, const HeaderRows& header) {
  nlohmann::json j;
  j["status"] = status_word(r.pass);
  j["pass"] = r.pass;
  for (const auto& [k, v] : header) j["header"][k] = v;
  j["trials"] = nlohmann::json::array();
  for (const auto& tr : r.trials) {
    nlohmann::json t{{"seed", tr.seed}, {"pass", tr.pass}, {"outputs", nlohmann::json::array()},
                     {"guard_violations", nlohmann::json::array()}, {"modified_inputs", nlohmann::json::array()}};
    for (const auto& c : tr.outputs) t["outputs"].push_back(output_json(c));
    for (const auto& g : tr.guards)
      t["guard_violations"].push_back({{"buffer", g.buffer}, {"before", g.before}, {"first_offset", g.first_offset},
                                       {"bytes_changed", g.bytes_changed}});
    for (const auto& m : tr.modified_inputs)
      t["modified_inputs"].push_back({{"name", m.name}, {"elements", m.elements}, {"first", m.first}, {"fails", m.fails}});
    j["trials"].push_back(t);
  }
  if (r.fault)
    j["fault"] = {{"kind", fault_kind_name(r.fault->kind)}, {"cuda_error", r.fault->cuda_error},
                  {"message", r.fault->message}, {"hint", r.fault->hint}, {"context_lost", r.fault->context_lost}};
  else
    j["fault"] = nullptr;
  j["warnings"] = r.warnings;
  return j;
}

void write_correctness_reports(const std::string& dir, const CheckResult& r, const HeaderRows& header) {
  write_file_atomic(join_path(dir, "correctness.md"), correctness_markdown(r, header));
  write_file_atomic(join_path(dir, "correctness.json"), correctness_json(r, header).dump(2) + "\n");
}

std::string correctness_console(const CheckResult& r) {
  std::string s;
  for (size_t t = 0; t < r.trials.size(); ++t) {
    for (const auto& c : r.trials[t].outputs) {
      s += fmt::format("  {} {:<12} trial {} max|delta| {:<10} mismatches {:<8} never-written {}{}\n",
                       styled(status_word(c.pass), c.pass ? Style::Ok : Style::Fail), c.name, t + 1,
                       fmt_sig(c.max_abs, 3), c.mismatches, c.never_written, c.pass ? "" : "  (" + c.reason + ")");
    }
    for (const auto& g : r.trials[t].guards)
      s += fmt::format("  {} write {} buffer '{}' ({} guard bytes changed)\n", styled("FAIL", Style::Fail),
                       g.before ? "before the start of" : "past the end of", g.buffer, g.bytes_changed);
    for (const auto& m : r.trials[t].modified_inputs)
      s += fmt::format("  {} input '{}' modified ({} elements)\n", styled(m.fails ? "FAIL" : "WARN", m.fails ? Style::Fail : Style::Warn),
                       m.name, m.elements);
  }
  if (r.fault)
    s += fmt::format("  {} {}: {}\n    hint: {}\n", styled("FAIL", Style::Fail), fault_kind_name(r.fault->kind),
                     r.fault->message, r.fault->hint);
  for (const auto& w : r.warnings) s += "  " + styled("warning:", Style::Warn) + " " + w + "\n";
  return s;
}

}  // namespace kprof
