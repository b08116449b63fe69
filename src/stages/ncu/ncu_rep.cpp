#include "stages/ncu/ncu_rep.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/ncu/warmup_report.hpp"
#include "python/embedded_module.hpp"
#include "python/interpreter.hpp"
#include "core/settings.hpp"

namespace kprof {

extern const char* const kNcuRepReaderSource;  // ncu_rep_py.cpp

namespace {

using nlohmann::json;

std::optional<double> opt_number(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

NcuRepKernel::Metric metric_of(const json& pair) {
  NcuRepKernel::Metric m;
  const json& v = pair.at(0);
  m.unit = pair.at(1).get<std::string>();
  if (v.is_string()) {
    m.text = v.get<std::string>();
  } else if (v.is_number()) {
    m.number = v.get<double>();
    m.text = v.is_number_integer() ? std::to_string(v.get<long long>()) : fmt::format("{}", v.get<double>());
  }
  return m;
}

NcuRepKernel kernel_of(const json& k) {
  NcuRepKernel out;
  out.id = k.value("id", 0);
  out.function = k.value("function", "");
  out.name = k.value("name", "");
  out.mangled = k.value("mangled", "");
  if (k.contains("metrics"))
    for (const auto& [name, pair] : k["metrics"].items()) out.metrics[name] = metric_of(pair);
  if (k.contains("instructions")) {
    for (const auto& row : k["instructions"]) {
      NcuRepInstruction ins;
      ins.pc = row.at(0).get<uint64_t>();
      ins.file = row.at(1).get<std::string>();
      ins.line = row.at(2).get<int>();
      ins.sass = row.at(3).get<std::string>();
      for (const auto& [name, v] : row.at(4).items()) ins.counters[name] = v.get<double>();
      out.instructions.push_back(std::move(ins));
    }
  }
  if (k.contains("source_files"))
    for (const auto& [file, text] : k["source_files"].items()) out.source_files[file] = text.get<std::string>();
  if (k.contains("nvtx"))
    for (const auto& r : k["nvtx"]) out.nvtx_ranges.push_back(r.get<std::string>());
  if (k.contains("rules")) {
    for (const auto& r : k["rules"]) {
      NcuRepRule rule{r.value("id", ""),
                      r.value("name", ""),
                      r.value("section", ""),
                      r.value("title", ""),
                      r.value("message", ""),
                      r.value("type", 0),
                      r.value("speedup_type", 0),
                      opt_number(r.value("speedup", json())),
                      {}};
      for (const auto& f : r.value("focus_metrics", json::array()))
        rule.focus_metrics.emplace_back(f.at(0).get<std::string>(), opt_number(f.at(1)));
      out.rules.push_back(std::move(rule));
    }
  }
  return out;
}

json candidates_json() {
  json c = json::array();
  for (const auto& [dir, label] : ncu_report_search_dirs()) c.push_back({dir, label});
  return c;
}

/// The first bytes of every .ncu-rep Nsight Compute writes (2025.3.1: "NVR\0", then the format's
/// version). ncu_report reads a file that lacks them as a report with no launches.
constexpr char kNcuRepMagic[4] = {'N', 'V', 'R', '\0'};

/// Throws usage_error (exit 2) when `path`, named .ncu-rep, does not start like one (empty,
/// truncated before its header, or another file): ncu_report reads such a file as a report of no
/// launches, which kprof would otherwise call "no profiled kernel".
void check_ncu_rep_header(const std::string& path) {
  if (!ends_with(path, ".ncu-rep")) return;
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  in.read(head, sizeof head);
  if (in.gcount() == sizeof head && std::equal(head, head + 4, kNcuRepMagic)) return;
  std::error_code ec;
  if (in.gcount() < static_cast<std::streamsize>(sizeof head) && std::equal(head, head + in.gcount(), kNcuRepMagic))
    throw damaged_input(path, fmt::format("it is {} bytes, shorter than a report's header", in.gcount()),
                        "profile again, or copy the whole report again from where ncu wrote it");
  throw usage_error(fmt::format("{} is not an Nsight Compute report: it is {} bytes and does not start like one "
                                "(a .ncu-rep begins with \"NVR\"); it may be truncated or another file",
                                path, std::filesystem::file_size(path, ec)),
                    "pass the report ncu wrote (ncu -o NAME writes NAME.ncu-rep), or profile again");
}

/// The layout of a .ncu-rep of format version 2 (Nsight Compute 2025.x; every report in
/// tests/data/ncurep and stages/ncu/warmup.ncu-rep): "NVR\0", the version as a little-endian u32,
/// two bytes, then blocks of [u32 length][length bytes] (a header, then the report's records) that
/// end exactly at the end of the file.
constexpr uint32_t kNcuRepLayoutVersion = 2;
constexpr std::streamoff kNcuRepFirstBlock = 10;

uint32_t le32(const unsigned char* b) {
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 | static_cast<uint32_t>(b[2]) << 16 |
         static_cast<uint32_t>(b[3]) << 24;
}

/// The first check of a .ncu-rep before Nsight Compute's closed module reads it (issue 50): its
/// header, then (format version 2) its chain of blocks, which a cut or a partial copy breaks.
/// Throws damaged_input (exit 2) naming what was read whole; usage_error for another file. true
/// when the chain was checked whole; false when it could not be (a layout version kprof does not
/// know, a file not named .ncu-rep): such a report is read in a child process (read_in_child).
bool check_ncu_rep_structure(const std::string& path) {
  check_ncu_rep_header(path);
  if (!ends_with(path, ".ncu-rep")) return false;
  std::ifstream in(path, std::ios::binary);
  unsigned char b[4];
  in.seekg(4);
  if (!in.read(reinterpret_cast<char*>(b), 4) || le32(b) != kNcuRepLayoutVersion) return false;
  std::error_code ec;
  const auto size = static_cast<std::streamoff>(std::filesystem::file_size(path, ec));
  if (ec) return false;
  std::streamoff off = kNcuRepFirstBlock;
  size_t blocks = 0;
  while (off < size) {
    in.seekg(off);
    if (off + 4 > size || !in.read(reinterpret_cast<char*>(b), 4))
      throw damaged_input(path,
                          fmt::format("it ends inside the length of its block {} ({} whole blocks, {} of {} bytes "
                                      "read)",
                                      blocks + 1, blocks, off, size),
                          "profile again, or copy the whole report again from where ncu wrote it");
    const std::streamoff next = off + 4 + static_cast<std::streamoff>(le32(b));
    if (next > size)
      throw damaged_input(path,
                          fmt::format("its block {} runs to byte {}, past its end at byte {} ({} whole blocks "
                                      "read)",
                                      blocks + 1, next, size, blocks),
                          "profile again, or copy the whole report again from where ncu wrote it");
    off = next;
    ++blocks;
  }
  return true;
}

/// The reader's answer `r` to `fn` on `path`: itself, nullopt with `why` when no ncu_report
/// module imports; its errors thrown as damaged_input / usage_error (never the module's text).
std::optional<json> reader_answer(const std::string& fn, const std::string& path, json r, std::string* why) {
  if (r.contains("error")) {
    const std::string kind = r.value("kind", "");
    if (kind == "no_module") {
      if (why) *why = r.value("error", std::string("no ncu_report module imports"));
      return std::nullopt;
    }
    if (fn == "read") {
      check_ncu_rep_header(path);  // not a report at all: say so rather than "damaged"
      const std::string module = r.value("module", std::string("?"));
      if (kind == "damaged")
        throw damaged_input(path,
                            fmt::format("Nsight Compute's ncu_report read {} launch(es) whole, then failed on {}",
                                        r.value("read", 0), r.value("stage", std::string("the next launch"))),
                            "profile again, or copy the whole report again from where ncu wrote it (ncu -o NAME "
                            "writes NAME.ncu-rep); the module used was " +
                                module);
      throw damaged_input(path, "Nsight Compute's ncu_report could not open it (or a newer Nsight Compute wrote it)",
                          "profile again, or copy the whole report again; a report of a newer ncu needs its own "
                          "ncu_report (the module used was " +
                              module + ")");
    }
    throw usage_error(
        fmt::format("ncu_report could not read {}: {}", path, r.value("error", std::string("?"))),
        "check that the file is an Nsight Compute report; the module used was " + r.value("module", std::string("?")));
  }
  return r;
}

/// Calls the reader's `fn` with `arg` (its path and candidates added) in kprof's embedded Python;
/// nullopt with `why` when no ncu_report module imports.
std::optional<json> call_reader(const std::string& fn, const std::string& path, json arg, std::string* why) {
  arg["path"] = path;
  arg["candidates"] = candidates_json();
  return reader_answer(fn, path, call_embedded_python("_kprof_ncu_rep", kNcuRepReaderSource, fn, arg), why);
}

/// The reader's entry point in a child Python: read(the JSON argument in argv[1]), its answer as
/// JSON on stdout.
constexpr const char* kChildMain = R"PY(
if __name__ == "__main__":
    import json as _json
    _answer = read(_json.loads(sys.argv[1]))
    sys.stdout.write(_json.dumps(_answer, default=str))
    sys.stdout.flush()
)PY";

/// The wall-clock limit of a read in a child (s): 5 minutes, plus a second per MB (ncu_report
/// reads about 0.5 s of metrics per launch; a large report is hundreds of MB).
double child_read_limit_s(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return 300.0 + (ec ? 0.0 : static_cast<double>(bytes) / 1e6);
}

/// Reads `path` with the reader's read(`arg`) in a child process of python_executable() (issue 50):
/// for a report the first check could not vouch for, so that Nsight Compute's closed module
/// crashing, aborting or hanging on it costs one message, not kprof. The same answer as
/// call_reader("read", ...); throws damaged_input (exit 2) when the child dies by a signal, exits
/// with an error, runs past child_read_limit_s (its process group is killed) or answers no whole
/// JSON; check_failed (exit 1) when no Python can be started. `because`: why the read is in a child,
/// for the hint.
std::optional<json> read_in_child(const std::string& path, json arg, std::string* why, const std::string& because) {
  arg["path"] = path;
  arg["candidates"] = candidates_json();
  ProcessOptions o;
  o.timeout_s = child_read_limit_s(path);
  trace_event("ncu_report: read in a child start");
  ProcessResult r =
      run_process({python_executable(), "-c", std::string(kNcuRepReaderSource) + kChildMain, arg.dump()}, o);
  trace_event("ncu_report: read in a child end");
  const std::string hint =
      "profile again, or copy the whole report again from where ncu wrote it (ncu -o NAME "
      "writes NAME.ncu-rep); kprof read it in a child process, because " +
      because;
  if (r.not_found)
    throw check_failed("cannot read " + path + ": Python (" + python_executable() + ") could not be started",
                       "set KPROF_PYTHON to a python executable that imports ncu_report");
  if (r.timed_out)
    throw damaged_input(path,
                        fmt::format("Nsight Compute's ncu_report did not finish reading it in {:.0f} s (the child "
                                    "process reading it was stopped)",
                                    o.timeout_s),
                        hint);
  if (r.term_signal != 0)
    throw damaged_input(path,
                        fmt::format("Nsight Compute's ncu_report crashed reading it (signal {}, {}; in a child "
                                    "process, so kprof went on)",
                                    r.term_signal, strsignal(r.term_signal)),
                        hint);
  json answer = json::parse(r.out, nullptr, false);
  if (r.exit_code != 0 || answer.is_discarded() || !answer.is_object())
    throw damaged_input(path,
                        fmt::format("Nsight Compute's ncu_report failed reading it (the child process reading it "
                                    "exited {} with no whole answer)",
                                    r.exit_code),
                        hint);
  return reader_answer("read", path, std::move(answer), why);
}

/// check_failed (exit 1): `path` cannot be read because no ncu_report module imports (`why`: where
/// it looked), with ncu_report_install_hint().
Error no_module_error(const std::string& path, const std::string& why) {
  return check_failed("cannot read " + path + ": no Nsight Compute ncu_report module could be imported (" + why + ")",
                      ncu_report_install_hint());
}

/// Sets up ncu_report's disassembler (its first sass_by_pc: about 0.45 s) on a thread of its own,
/// once per process, after a read without the SASS text (the reader keeps one PC for it). It
/// holds the GIL meanwhile, so a later read_ncu_rep_sass simply waits for it.
void warm_disassembler() {
  static std::mutex m;
  static std::shared_future<bool> warm;  // true once the disassembler is set up
  std::lock_guard<std::mutex> lock(m);
  if (warm.valid() && (warm.wait_for(std::chrono::seconds(0)) != std::future_status::ready || warm.get())) return;
  warm = std::async(std::launch::async, [] {
           adopt_python_thread();
           try {
             trace_event("ncu_report: disassembler set-up start");
             bool warmed =
                 call_embedded_python("_kprof_ncu_rep", kNcuRepReaderSource, "warm_disassembler", json::object())
                     .value("warmed", false);
             trace_event("ncu_report: disassembler set-up end");
             return warmed;
           } catch (const Error&) {  // the lookups that follow say what is wrong
             return false;
           }
         }).share();
}

}  // namespace

bool warm_disassembler_early() {
  static std::mutex m;
  static bool warmed = false;
  std::lock_guard<std::mutex> lock(m);
  if (warmed) return true;
  ScratchFile report("kprof-warmup", ".ncu-rep", warmup_report_bytes());
  if (report.path().empty()) return false;
  trace_event("ncu_report: early disassembler set-up start");
  try {
    warmed = call_embedded_python("_kprof_ncu_rep", kNcuRepReaderSource, "warm_disassembler_with",
                                  {{"path", report.path()}, {"candidates", candidates_json()}})
                 .value("warmed", false);
  } catch (const Error&) {  // the lookups after the read say what is wrong
  }
  trace_event(std::string("ncu_report: early disassembler set-up end") + (warmed ? "" : " (not set up)"));
  return warmed;
}

double NcuRepInstruction::counter(const std::string& name) const {
  auto it = counters.find(name);
  return it == counters.end() ? 0.0 : it->second;
}

std::vector<std::pair<std::string, std::string>> ncu_report_search_dirs() {
  std::vector<std::pair<std::string, std::string>> dirs;
  if (const std::string& d = settings().ncu_report; !d.empty()) dirs.emplace_back(d, "$KPROF_NCU_REPORT");
  std::vector<std::string> ncu_dirs;
  std::string ncu = find_ncu();
  if (!ncu.empty()) {
    std::error_code ec;
    auto real = std::filesystem::canonical(ncu, ec);
    if (!ec) ncu_dirs.push_back(real.parent_path().string());
  }
  for (const char* pattern : {"/usr/local/cuda*/nsight-compute-*", "/opt/nvidia/nsight-compute/*"})
    for (const auto& d : glob_sorted(pattern)) ncu_dirs.push_back(d);
  for (const auto& d : ncu_dirs) {
    std::string extras = join_path(join_path(d, "extras"), "python");
    bool seen = false;
    for (const auto& [have, label] : dirs) seen = seen || have == extras;
    if (!seen && path_exists(extras)) dirs.emplace_back(extras, "ncu's extras/python");
  }
  return dirs;
}

std::string ncu_report_install_hint() {
  return fmt::format(
      "install Nsight Compute (its extras/python holds ncu_report), or PyPI's ncu-report in "
      "kprof's Python: python3 -m pip install ncu-report=={}; or set KPROF_NCU_REPORT to a "
      "folder that holds ncu_report",
      kNcuReportTestedVersion);
}

std::string ncu_report_unavailable_reason() {
  try {
    json r = call_embedded_python("_kprof_ncu_rep", kNcuRepReaderSource, "module_origin",
                                  {{"candidates", candidates_json()}});
    return r.contains("error") ? r["error"].get<std::string>() : "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::optional<NcuRep> try_read_ncu_rep(const std::string& path, const NcuRepReadOptions& opts, std::string* why_not) {
  if (!path_exists(path)) throw usage_error("no such file: " + path, "pass an Nsight Compute report (.ncu-rep)");
  // A cut report is refused before the closed module reads it; one the check cannot vouch for is
  // read in a child, with its SASS text (no lookups in this process later). So is every report in
  // hosted mode (the Python package): there the process is the user's Python with whatever it loaded,
  // and Nsight Compute's closed module crashed (SIGSEGV in IMetric.unit) in `python -m kprof run` on
  // the H100 of 2026-12-05 (docs/gpu-runs.md), while the same read in a plain Python works.
  const bool whole = check_ncu_rep_structure(path);
  const bool in_process = whole && !python_hosted();
  json arg = {{"metrics", opts.metrics},
              {"source", opts.source},
              {"sass", opts.sass || !in_process},
              {"rules", opts.rules},
              {"nvtx", opts.nvtx}};
  auto r = in_process ? call_reader("read", absolute_path(path), arg, why_not)
                      : read_in_child(absolute_path(path), arg, why_not,
                                      whole ? "kprof runs inside a Python program (the kprof package), which "
                                              "keeps Nsight Compute's module out of its own process"
                                            : "its first check could not vouch for the file");
  if (!r) return std::nullopt;
  NcuRep rep;
  rep.path = path;
  rep.sass_deferred = in_process && opts.source && !opts.sass;
  if (rep.sass_deferred) warm_disassembler();
  rep.module_origin = r->value("module", "");
  try {
    for (const auto& k : r->at("kernels")) rep.kernels.push_back(kernel_of(k));
  } catch (const nlohmann::json::exception&) {  // a field of the wrong kind: what the module read is not whole
    check_ncu_rep_header(path);
    throw damaged_input(
        path, fmt::format("launch {} as Nsight Compute's ncu_report read it is incomplete", rep.kernels.size()));
  }
  if (rep.kernels.empty()) {  // ncu_report reads a broken file as one of no launches; ncu writes none such
    check_ncu_rep_header(path);
    if (opts.metrics || opts.source)
      throw damaged_input(path,
                          "Nsight Compute's ncu_report read no launch from it (ncu writes no report when it "
                          "profiles none)",
                          "profile again, or copy the whole report again from where ncu wrote it");
  }
  return rep;
}

std::map<uint64_t, std::string> read_ncu_rep_sass(const std::string& path, int kernel_id,
                                                  const std::vector<uint64_t>& pcs) {
  std::map<uint64_t, std::string> out;
  if (pcs.empty()) return out;
  if (!path_exists(path)) throw usage_error("no such file: " + path, "pass an Nsight Compute report (.ncu-rep)");
  std::string why;
  trace_event("ncu_report: sass lookups start");
  auto r = call_reader("sass", absolute_path(path), {{"kernel", kernel_id}, {"pcs", pcs}}, &why);
  trace_event("ncu_report: sass lookups end");
  if (!r) throw no_module_error(path, why);
  for (const auto& [pc, text] : (*r)["sass"].items()) out[std::stoull(pc)] = text.get<std::string>();
  return out;
}

NcuRep read_ncu_rep(const std::string& path, const NcuRepReadOptions& opts) {
  std::string why;
  auto rep = try_read_ncu_rep(path, opts, &why);
  if (!rep) throw no_module_error(path, why);
  return *rep;
}

}  // namespace kprof
