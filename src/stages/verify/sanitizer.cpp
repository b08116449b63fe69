#include "stages/verify/sanitizer.hpp"

#include "core/implementation.hpp"

#include <fmt/format.h>

#include <cctype>
#include <regex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/enum_names.hpp"

namespace kprof {
namespace {

constexpr const char* kToolList = "memcheck, racecheck, initcheck, synccheck";

/// One stack frame as compute-sanitizer prints it: "reverse(const float *, float *, int)+0x90 in
/// race.cu:18", "0x3b0 in void k<int>(int*)" or the older "0x150 in ./race.cu:13:test(int*)".
struct Frame {
  std::string func;
  std::string offset;  ///< "0x90" ("" when not printed)
  std::string loc;     ///< "race.cu:18" ("" when not printed)
  /// The location when printed, else "+offset": the kernel is named beside it.
  std::string where() const { return !loc.empty() ? loc : offset.empty() ? func : "+" + offset; }
};

Frame parse_frame(const std::string& text) {
  static const std::regex old_loc(R"(^([^:()<>\s]+):(\d+):(.*)$)");
  Frame f;
  std::string s = trim(text);
  if (starts_with(s, "0x")) {  // "0xPC in FUNC" or "0xPC in FILE:LINE:FUNC"
    size_t in = s.find(" in ");
    f.offset = s.substr(0, in);
    std::string rest = in == std::string::npos ? "" : trim(s.substr(in + 4));
    std::smatch m;
    if (std::regex_match(rest, m, old_loc)) {
      f.loc = m[1].str() + ":" + m[2].str();
      f.func = trim(m[3]);
    } else {
      f.func = rest;
    }
    return f;
  }
  size_t plus = s.rfind("+0x");
  if (plus == std::string::npos) {
    size_t in = s.rfind(" in ");
    f.func = trim(s.substr(0, in));
    if (in != std::string::npos) f.loc = trim(s.substr(in + 4));
    return f;
  }
  f.func = trim(s.substr(0, plus));
  size_t end = plus + 1;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
  f.offset = s.substr(plus + 1, end - plus - 1);
  std::string rest = trim(s.substr(end));
  if (starts_with(rest, "in ")) f.loc = trim(rest.substr(3));
  return f;
}

/// The report block being read: its header and what its indented lines said.
struct Block {
  enum Type { None, Generic, Race, Hazard } type = None;
  std::string severity = "error";
  std::string kind;
  Frame at;                    ///< "at ..." (the innermost function), or a hazard's first thread
  std::optional<Frame> outer;  ///< the last "Device Frame:" (the kernel)
  std::optional<Frame> first;  ///< a race's first access
  std::string first_access;    ///< "Write"
  std::vector<std::string> details;
  bool pairs = false;  ///< a race block produced at least one pair
};

class Parser {
 public:
  explicit Parser(SanitizerTool tool) { out_.tool = tool; }

  void line(const std::string& raw) {
    std::string l = raw;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (!starts_with(l, "=========")) return;  // the target's own output
    std::string body = l.substr(9);
    if (trim(body).empty()) return finish();
    if (starts_with(body, "  ")) return continuation(trim(body));
    finish();
    header(trim(body));
  }

  SanitizerOutput done() {
    finish();
    return out_;
  }

 private:
  void header(const std::string& h) {
    static const std::regex err_sum(R"(ERROR SUMMARY:\s*(\d+) errors?)");
    static const std::regex race_sum(
        R"(RACECHECK SUMMARY:\s*(\d+) hazards? displayed\s*\((\d+) errors?,\s*(\d+) warnings?\))");
    std::smatch m;
    if (std::regex_search(h, m, race_sum)) {
      out_.summary_found = true;
      out_.hazards = std::stol(m[1]);
      out_.errors = std::stol(m[2]);
      out_.warnings = std::stol(m[3]);
      race_summary_ = true;
      return;
    }
    if (std::regex_search(h, m, err_sum)) {
      out_.summary_found = true;
      if (!race_summary_) out_.errors = std::stol(m[1]);
      return;
    }
    if (h == "COMPUTE-SANITIZER") return;
    std::string sev, msg = h;
    for (const char* p : {"Error:", "ERROR:", "Warning:", "WARN:"}) {
      if (!starts_with(h, p)) continue;
      sev = (p[0] == 'E') ? "error" : "warning";
      msg = trim(h.substr(std::string(p).size()));
      break;
    }
    if (starts_with(msg, "(")) msg = trim(msg.substr(msg.find(')') + 1));  // "WARN:(Warp Level Programming) ..."
    static const std::regex race_head(R"(^Race reported between (\w+) access at (.*)$)");
    static const std::regex hazard_head(R"(Potential (\w+) hazard detected at (__\w+__))");
    if (!sev.empty() && std::regex_match(msg, m, race_head)) {
      cur_.type = Block::Race;
      cur_.severity = sev;
      cur_.first_access = m[1];
      cur_.first = parse_frame(m[2]);
      return;
    }
    if (!sev.empty() && std::regex_search(msg, m, hazard_head)) {
      cur_.type = Block::Hazard;
      cur_.severity = sev;
      cur_.kind = "Potential " + m[1].str() + " hazard on " + m[2].str() + " memory";
      return;
    }
    if (!sev.empty() || starts_with(h, "Note:") || h.find("SUMMARY:") != std::string::npos ||
        starts_with(h, "Target application") || starts_with(h, "Internal")) {
      out_.notes.push_back(h);
      return;
    }
    cur_.type = Block::Generic;
    cur_.kind = h;
    if (!cur_.kind.empty() && cur_.kind.back() == '.') cur_.kind.pop_back();
  }

  void continuation(const std::string& t) {
    if (cur_.type == Block::None) return;
    if (cur_.type == Block::Race) return race_pair(t);
    static const std::regex thread(R"(^(\w+) Thread \(([^)]*)\) at (.*)$)");
    std::smatch m;
    if (cur_.type == Block::Hazard && std::regex_match(t, m, thread)) {
      Frame f = parse_frame(m[3]);
      if (cur_.at.func.empty()) cur_.at = f;
      add_detail(m[1].str() + " thread (" + m[2].str() + ") at " + f.where());
    } else if (starts_with(t, "at ")) {
      if (cur_.at.func.empty()) cur_.at = parse_frame(t.substr(3));
    } else if (starts_with(t, "Device Frame:")) {
      cur_.outer = parse_frame(t.substr(13));
    } else if (!starts_with(t, "Saved host backtrace") && !starts_with(t, "Host Frame:") &&
               !starts_with(t, "Current Value")) {
      add_detail(t);
    }
  }

  void race_pair(const std::string& t) {
    static const std::regex pair(R"(^and (\w+) access at (.*?)(?:\s*\[(\d+) hazards?\])?$)");
    std::smatch m;
    if (!std::regex_match(t, m, pair) || !cur_.first) return;
    Frame second = parse_frame(m[2]);
    SanitizerReport r;
    r.kind = "Race reported between " + cur_.first_access + " access and " + m[1].str() + " access";
    r.severity = cur_.severity;
    r.kernel = cur_.first->func;
    r.location = cur_.first->loc;
    r.detail =
        cur_.first_access + " access at " + cur_.first->where() + " and " + m[1].str() + " access at " + second.where();
    r.count = m[3].matched ? std::stol(m[3]) : 1;
    add(r);
    cur_.pairs = true;
  }

  void add_detail(const std::string& d) {
    if (cur_.details.size() < 2) cur_.details.push_back(d);
  }

  void finish() {
    if (cur_.type == Block::None) return;
    ++out_.printed;
    if (cur_.type == Block::Race) {
      if (!cur_.pairs && cur_.first) {
        SanitizerReport r{"Race reported at " + cur_.first_access + " access",
                          cur_.severity,
                          cur_.first->func,
                          cur_.first->loc,
                          cur_.first_access + " access at " + cur_.first->where(),
                          1,
                          false};
        add(r);
      }
    } else {
      SanitizerReport r;
      r.kind = cur_.kind;
      r.severity = cur_.severity;
      r.kernel = cur_.outer ? cur_.outer->func : cur_.at.func;
      r.location = !cur_.at.loc.empty() ? cur_.at.loc : cur_.outer ? cur_.outer->loc : "";
      for (const auto& d : cur_.details) r.detail += (r.detail.empty() ? "" : "; ") + d;
      r.count = 1;
      add(r);
    }
    cur_ = Block{};
  }

  void add(const SanitizerReport& r) {
    for (auto& g : out_.reports)
      if (g.kind == r.kind && g.kernel == r.kernel && g.location == r.location && g.severity == r.severity) {
        g.count += r.count;
        return;
      }
    out_.reports.push_back(r);
  }

  SanitizerOutput out_;
  Block cur_;
  bool race_summary_ = false;
};

std::string plural(long n, const std::string& word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

/// The names of SanitizerTool (core/enum_names.hpp).
constexpr auto kSanitizerToolNames = enum_names<SanitizerTool>({{SanitizerTool::Memcheck, "memcheck"},
                                                                {SanitizerTool::Racecheck, "racecheck"},
                                                                {SanitizerTool::Initcheck, "initcheck"},
                                                                {SanitizerTool::Synccheck, "synccheck"}},
                                                               "memcheck");

std::string sanitizer_tool_name(SanitizerTool tool) { return kSanitizerToolNames.name(tool); }

std::optional<SanitizerTool> parse_sanitizer_tool(const std::string& name) { return kSanitizerToolNames.parse(name); }

std::vector<SanitizerTool> parse_sanitizer_tools(const std::string& list) {
  const std::string hint =
      std::string("--sanitize takes a comma-separated list of ") + kToolList + ", e.g. --sanitize memcheck,racecheck";
  if (trim(list).empty()) throw usage_error("--sanitize needs at least one tool", hint);
  std::vector<SanitizerTool> tools;
  for (const auto& item : split(list, ',')) {
    std::string name = trim(item);
    if (name.empty()) throw usage_error("--sanitize '" + list + "' has an empty item", hint);
    auto t = parse_sanitizer_tool(name);
    if (!t) throw usage_error("--sanitize: unknown compute-sanitizer tool '" + name + "'", hint);
    for (auto have : tools)
      if (have == *t) throw usage_error("--sanitize names " + name + " twice", hint);
    tools.push_back(*t);
  }
  return tools;
}

SanitizerOutput parse_sanitizer_output(SanitizerTool tool, const std::string& text) {
  Parser p(tool);
  for (const auto& l : split(text, '\n')) p.line(l);
  return p.done();
}

bool is_library_kernel(const std::string& kernel, bool cutlass_is_user) {
  std::string k = trim(kernel);
  if (starts_with(k, "void ")) k = trim(k.substr(5));
  if (k.empty()) return true;
  // PyTorch's, cuBLAS', cuDNN's and kprof's own kernels; the languages' libraries come from their rows.
  static const char* const prefixes[] = {
      "at::",          "at_cuda_detail::", "c10::",           "cublas",   "cudnn", "nvjet_",  "xmma_",
      "ampere_",       "volta_",           "turing_",         "maxwell_", "gemv2", "gemvNSP", "gemmSN_",
      "gemmk1_kernel", "splitKreduce_",    "pytorch_flash::", "kprof::",  "kprof_"};
  for (const char* p : prefixes)
    if (starts_with(k, p)) return true;
  for (const auto& row : language_rows())
    for (const auto& p : row.kernel_prefixes)
      if (starts_with(k, p)) return true;
  static const std::regex xmma(R"(^sm\d+_xmma)");
  if (std::regex_search(k, xmma)) return true;
  return !cutlass_is_user && (starts_with(k, "cutlass::") || starts_with(k, "cutlass_"));
}

void classify_reports(SanitizerOutput& out, bool cutlass_is_user) {
  for (auto& r : out.reports) r.library = is_library_kernel(r.kernel, cutlass_is_user);
}

SanitizerToolResult judge_sanitizer_run(SanitizerTool tool, const std::string& text, int exit_code, bool timed_out,
                                        const std::string& start_error, bool cutlass_is_user) {
  SanitizerToolResult r;
  r.tool = tool;
  r.exit_code = exit_code;
  r.timed_out = timed_out;
  r.output = parse_sanitizer_output(tool, text);
  classify_reports(r.output, cutlass_is_user);
  for (const auto& g : r.output.reports) {
    if (g.library)
      r.library_errors += g.count;
    else if (g.severity == "error")
      r.user_errors += g.count;
    else
      r.user_warnings += g.count;
  }
  const char* summary = tool == SanitizerTool::Racecheck ? "RACECHECK SUMMARY" : "ERROR SUMMARY";
  if (!start_error.empty())
    r.error = start_error;
  else if (timed_out)
    r.error = "timed out: compute-sanitizer did not finish within the limit (it was stopped)";
  else if (!r.output.summary_found)
    r.error = fmt::format("compute-sanitizer ended (exit status {}) without its {} line{}", exit_code, summary,
                          r.output.notes.empty() ? "" : ": " + r.output.notes.front());
  else if (r.output.errors > 0 && r.output.reports.empty())
    r.error = fmt::format("{} reported but none could be read (which kernel, where): see the log",
                          plural(r.output.errors, "error"));
  r.pass = r.error.empty() && r.user_errors == 0;
  return r;
}

std::string sanitizer_tool_line(const SanitizerToolResult& r) {
  const std::string name = sanitizer_tool_name(r.tool);
  if (!r.error.empty()) return name + ": no verdict: " + r.error;
  std::string lib = r.library_errors > 0 ? fmt::format("; {} in library kernels or API calls (not failing)",
                                                       plural(r.library_errors, "report"))
                                         : "";
  const bool race = r.tool == SanitizerTool::Racecheck;
  if (r.user_errors == 0) {
    std::string warn = r.user_warnings > 0 ? fmt::format("; {} in the kernel (not failing)",
                                                         plural(r.user_warnings, race ? "warning hazard" : "warning"))
                                           : "";
    return name + ": no error in the kernel" + warn + lib;
  }
  const SanitizerReport* first = nullptr;
  for (const auto& g : r.output.reports)
    if (!g.library && g.severity == "error") {
      first = &g;
      break;
    }
  std::string where = first->location.empty() ? "" : " at " + first->location;
  return fmt::format("{}: {} in the kernel: {} in {}{} ({}){}", name, plural(r.user_errors, race ? "hazard" : "error"),
                     first->kind, first->kernel, where,
                     race ? plural(first->count, "hazard") : plural(first->count, "report"), lib);
}

}  // namespace kprof
