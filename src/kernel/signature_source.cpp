#include "kernel/signature_source.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "kernel/cutlass.hpp"
#include "core/tools.hpp"
#include "kernel/build.hpp"
#include "kernel/build_record.hpp"
#include "kernel/library.hpp"
#include "kernel/preprocess.hpp"

namespace kprof {
namespace {

/// The nvcc line `kprof build` would run for `req` (nvcc_command), with the architecture it would pick.
std::vector<std::string> planned_build_argv(const SignatureRequest& req, const std::string& nvcc,
                                            const std::string& text) {
  std::string arch = resolve_arch(req.arch, req.arch.empty() ? build_arch_for_hints() : "", req.impl, text);
  std::optional<CutlassInstall> cutlass;
  if (req.impl == Implementation::Cutlass) cutlass = locate_cutlass().found;  // absent: preprocessing says so
  return nvcc_command(nvcc, req.kernel_path, req.so_path, arch, req.impl, cutlass ? &*cutlass : nullptr,
                      req.nvcc_flags);
}

/// One directive line: "#  ifdef X" -> {"ifdef", "X"}.
std::pair<std::string, std::string> directive_of(const std::string& line) {
  std::string t = trim(line);
  if (t.empty() || t[0] != '#') return {};
  t = trim(t.substr(1));
  size_t n = 0;
  while (n < t.size() && (std::isalpha(static_cast<unsigned char>(t[n])) || t[n] == '_')) ++n;
  std::string rest = trim(t.substr(n));
  if (auto c = rest.find("//"); c != std::string::npos) rest = trim(rest.substr(0, c));
  return {t.substr(0, n), rest};
}

std::string memo_key(const SignatureRequest& req, const std::vector<std::string>& argv, const std::string& text) {
  std::string k = req.kernel_path + '\n' + std::to_string(std::hash<std::string>{}(text));
  for (const auto& a : argv) k += '\n' + a;
  return k;
}

}  // namespace

std::string distinctive_flags(const std::vector<std::string>& argv) {
  static const std::vector<std::string> fixed = {"-O3", "-std=c++17", "-shared", "-lineinfo"};
  std::string out;
  for (size_t i = 1; i + 1 < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-o") {
      ++i;
      continue;
    }
    if (a == "-Xcompiler" && i + 1 < argv.size() && argv[i + 1] == "-fPIC") {
      ++i;
      continue;
    }
    if (std::find(fixed.begin(), fixed.end(), a) != fixed.end()) continue;
    out += (out.empty() ? "" : " ") + shell_quote(a);
  }
  return out;
}

std::string enclosing_branches(const std::string& source, int target) {
  struct Group {
    std::string open;  // "#ifdef USE_DOUBLE"
    int open_line = 0;
    std::string branch;  // "" while in the first branch, else "#else" / "#elif X"
    int branch_line = 0;
  };
  std::vector<Group> stack;
  std::vector<std::string> lines = split(source, '\n');
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) + 1 < target; ++i) {
    std::string line = lines[i];
    int first = static_cast<int>(i) + 1;
    while (!line.empty() && line.back() == '\\' && i + 1 < lines.size()) line.pop_back(), line += lines[++i];
    auto [name, rest] = directive_of(line);
    std::string text = "#" + name + (rest.empty() ? "" : " " + rest);
    if (name == "if" || name == "ifdef" || name == "ifndef")
      stack.push_back({text, first, "", 0});
    else if ((name == "elif" || name == "elifdef" || name == "elifndef" || name == "else") && !stack.empty())
      stack.back().branch = text, stack.back().branch_line = first;
    else if (name == "endif" && !stack.empty())
      stack.pop_back();
  }
  std::string out;
  for (const auto& g : stack) {
    out += out.empty() ? "in " : ", ";
    out += g.branch.empty() ? fmt::format("`{}` (line {})", g.open, g.open_line)
                            : fmt::format("the `{}` branch (line {}) of `{}` (line {})", g.branch, g.branch_line,
                                          g.open, g.open_line);
  }
  return out;
}

SignatureReading read_solve_signature(const SignatureRequest& req) {
  static std::mutex mu;
  static std::map<std::string, SignatureReading> memo;
  const std::string text = read_file(req.kernel_path);
  std::vector<std::string> notes;
  std::string why, flags_from;
  std::optional<BuildRecord> rec;
  if (!req.build || !needs_rebuild(req.kernel_path, req.so_path))
    rec = read_build_record(req.so_path, req.kernel_path, &why);
  if (!why.empty()) notes.push_back(why);
  if (rec && req.build && rec->extra_flags != req.nvcc_flags) rec.reset();  // --build rebuilds with the new flags
  std::vector<std::string> argv;
  const std::string nvcc = nvcc_path();
  if (rec) {
    argv = rec->command;  // this machine's paths: the source and library as given now
    argv.back() = req.kernel_path;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-o") argv[i + 1] = req.so_path;
    if (!nvcc.empty() && !path_exists(argv[0])) argv[0] = nvcc;
    flags_from = "recorded with " + req.so_path;
  } else if (!nvcc.empty()) {
    argv = planned_build_argv(req, nvcc, text);
    flags_from = req.nvcc_flags.empty() ? "kprof build's flags" : "kprof build's flags and the flags after `--`";
  }
  const std::string key = memo_key(req, argv, text);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  SignatureReading r;
  r.notes = notes;
  std::string cost;
  if (argv.empty()) {
    r.notes.push_back(
        "nvcc not found: solve() was read from the source text, where #if / #ifdef branches are not "
        "evaluated (only `#if 0` is skipped); install the CUDA toolkit or put nvcc on PATH");
  } else {
    HostPreprocess pp = preprocess_host(argv, req.kernel_path);
    if (pp.ok) {
      r.signature = parse_solve_signature(pp.text, /*preprocessed=*/true);
      r.preprocessed = true;
      cost = pp.cached ? fmt::format("cached, {:.0f} ms", pp.wall_s * 1e3) : fmt::format("{:.2f} s", pp.wall_s);
    } else {
      r.notes.push_back(pp.problem +
                        ": solve() was read from the source text, where #if / #ifdef branches are not "
                        "evaluated (only `#if 0` is skipped)");
    }
  }
  if (!r.preprocessed) {
    try {
      r.signature = parse_solve_signature(text);
    } catch (const Error& e) {  // the note may be why (a macro type, a branch nvcc would not take)
      std::string why;
      for (const auto& n : r.notes) why += "; note: " + n;
      throw Error(e.code(), e.what(), e.hint() + why);
    }
  }
  const Signature& s = r.signature;
  const bool main_file = s.file.empty() || s.file == req.kernel_path;
  std::string branch = main_file ? enclosing_branches(text, s.line) : "";
  std::string at = fmt::format("solve() at {}:{}{}", main_file ? req.kernel_path : s.file, s.line,
                               branch.empty() ? "" : " (" + branch + ")");
  if (r.preprocessed) {
    std::string flags = distinctive_flags(argv);
    r.how = fmt::format("{}, read as nvcc preprocesses it for the host{} ({}; {})", at,
                        flags.empty() ? "" : " with " + flags, flags_from, cost);
  } else {
    r.how = at + ", read from the source text";
  }
  for (const auto& n : s.notes) r.notes.push_back(n);
  std::lock_guard<std::mutex> lock(mu);
  return memo[key] = r;
}

}  // namespace kprof
