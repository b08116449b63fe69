#include "stages/analysis/hot_lines.hpp"

#include "core/implementation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

namespace sm = srcmetric;

using Sums = std::map<std::string, double>;

double get(const Sums& s, const std::string& name) {
  auto it = s.find(name);
  return it == s.end() ? 0.0 : it->second;
}

/// Leading stall reasons in `sums` ("selected" is issuing, not a stall), at most `max`.
std::vector<LineStall> stalls_of(const Sums& sums, double samples, size_t max) {
  std::vector<LineStall> out;
  std::string prefix = sm::kStallPrefix;
  for (const auto& [name, v] : sums) {
    if (name.rfind(prefix, 0) != 0 || v <= 0) continue;
    std::string reason = name.substr(prefix.size());
    if (reason == "selected") continue;
    out.push_back({reason, v, samples > 0 ? 100.0 * v / samples : 0.0});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LineStall& a, const LineStall& b) { return a.samples > b.samples; });
  if (out.size() > max) out.resize(max);
  return out;
}

HotInstruction instruction_of(const NcuRepInstruction& ins, double total) {
  HotInstruction h;
  h.pc = ins.pc;
  h.sass = ins.sass;
  h.opcode = sass_opcode(ins.sass);
  h.samples = ins.counter(sm::kSamples);
  h.share_pct = total > 0 ? 100.0 * h.samples / total : 0.0;
  auto st = stalls_of(ins.counters, h.samples, 1);
  if (!st.empty()) h.top_stall = st[0].reason;
  return h;
}

/// Source text by file and line: the report's imported copy, else the file on this machine.
class SourceText {
 public:
  explicit SourceText(const NcuRepKernel& k) : k_(k) {}
  std::string line(const std::string& file, int line) {
    if (line <= 0 || file.empty()) return "";
    auto it = cache_.find(file);
    if (it == cache_.end()) {
      std::string text;
      auto f = k_.source_files.find(file);
      if (f != k_.source_files.end()) text = f->second;
      if (text.empty() && path_exists(file)) {
        try {
          text = read_file(file);
        } catch (const std::exception&) {
          text.clear();
        }
      }
      it = cache_.emplace(file, split(text, '\n')).first;
    }
    const auto& lines = it->second;
    return static_cast<size_t>(line) <= lines.size() ? trim(lines[static_cast<size_t>(line) - 1]) : "";
  }

 private:
  const NcuRepKernel& k_;
  std::map<std::string, std::vector<std::string>> cache_;
};

struct LineAgg {
  std::string file;
  int line = 0;
  Sums sums;
  std::vector<size_t> members;  ///< indices into k.instructions
};

void fill_line(HotLine& h, const LineAgg& a, const NcuRepKernel& k, double total, const HotLinesOptions& o) {
  h.samples = get(a.sums, sm::kSamples);
  double p = total > 0 ? h.samples / total : 0.0;
  h.share_pct = 100.0 * p;
  h.share_stderr_pct = total > 0 ? 100.0 * std::sqrt(p * (1 - p) / total) : 0.0;
  h.stalls = stalls_of(a.sums, h.samples, 3);
  h.inst_executed = get(a.sums, sm::kInst);
  if (h.inst_executed > 0) h.threads_per_inst = get(a.sums, sm::kThreadInst) / h.inst_executed;
  h.global_sectors = get(a.sums, sm::kGlobalSectors);
  h.global_sectors_ideal = get(a.sums, sm::kGlobalSectorsIdeal);
  h.global_sectors_excess = get(a.sums, sm::kGlobalSectorsExcess);
  h.shared_wavefronts = get(a.sums, sm::kSharedWavefronts);
  h.shared_wavefronts_ideal = get(a.sums, sm::kSharedWavefrontsIdeal);
  h.shared_wavefronts_excess = get(a.sums, sm::kSharedWavefrontsExcess);
  h.local_sectors = get(a.sums, sm::kLocalSectors);
  h.divergent_branch_targets = get(a.sums, sm::kDivergentTargets);
  for (size_t i : a.members) h.instructions.push_back(instruction_of(k.instructions[i], total));
  std::stable_sort(h.instructions.begin(), h.instructions.end(),
                   [](const HotInstruction& x, const HotInstruction& y) { return x.samples > y.samples; });
  if (h.instructions.size() > o.sass_per_line) h.instructions.resize(o.sass_per_line);
}

/// The nearest earlier instruction (address order) before `first` whose line is in a user file.
std::optional<SourceRef> user_line_before(const NcuRepKernel& k, size_t first, SourceText& text) {
  for (size_t i = first; i-- > 0;) {
    const auto& ins = k.instructions[i];
    if (ins.line > 0 && !is_library_source(ins.file))
      return SourceRef{ins.file, ins.line, text.line(ins.file, ins.line)};
  }
  return std::nullopt;
}

struct WasteKind {
  const char* kind;
  const char* what;
  std::string metric;
};

const std::vector<WasteKind>& waste_kinds() {
  static const std::vector<WasteKind> kinds = {
      {"uncoalesced", "excess global sectors (L2 sectors beyond the ideal for the bytes requested)",
       sm::kGlobalSectorsExcess},
      {"bank_conflicts", "excess shared-memory wavefronts (bank conflicts)", sm::kSharedWavefrontsExcess},
      {"local_memory", "local-memory sectors (spills, local arrays)", sm::kLocalSectors},
      {"divergence", "divergent branch targets", sm::kDivergentTargets},
  };
  return kinds;
}

/// Stall reasons that get a waste site: at most this many, each with at least this share of the
/// kernel's samples (kprof's choice: the reasons that can explain a finding).
constexpr size_t kMaxStallSites = 3;
constexpr double kMinStallSiteSharePct = 5.0;

/// Per waste kind (and per leading stall reason) the site holding most of it.
std::vector<WasteSite> waste_sites(const NcuRepKernel& k, const std::vector<LineAgg>& lines, const KernelHotLines& r,
                                   SourceText& text) {
  std::vector<WasteKind> kinds = waste_kinds();
  Sums kernel_sums;
  for (const auto& ins : k.instructions)
    for (const auto& [n, v] : ins.counters) kernel_sums[n] += v;
  for (const auto& s : stalls_of(kernel_sums, r.total_samples, kMaxStallSites))
    if (s.share_pct >= kMinStallSiteSharePct)
      kinds.push_back({"", "warp stall samples", std::string(sm::kStallPrefix) + s.reason});
  std::vector<WasteSite> out;
  for (const auto& wk : kinds) {
    double total = get(kernel_sums, wk.metric);
    if (total <= 0) continue;
    WasteSite w;
    w.kind = *wk.kind ? wk.kind : "stall:" + wk.metric.substr(std::string(sm::kStallPrefix).size());
    w.what = wk.what;
    w.kernel_total = total;
    if (r.has_line_info) {
      const LineAgg* best = nullptr;
      for (const auto& a : lines)
        if (a.line > 0 && (!best || get(a.sums, wk.metric) > get(best->sums, wk.metric))) best = &a;
      if (!best) continue;
      w.value = get(best->sums, wk.metric);
      w.where = SourceRef{best->file, best->line, text.line(best->file, best->line)};
      for (size_t i = 0; i < r.lines.size(); ++i)
        if (r.lines[i].where.file == best->file && r.lines[i].where.line == best->line)
          w.rank = static_cast<int>(i) + 1;
    } else {
      const NcuRepInstruction* best = nullptr;
      for (const auto& ins : k.instructions)
        if (!best || ins.counter(wk.metric) > best->counter(wk.metric)) best = &ins;
      w.value = best->counter(wk.metric);
      w.instruction = instruction_of(*best, r.total_samples);
      for (size_t i = 0; i < r.top_instructions.size(); ++i)
        if (r.top_instructions[i].pc == best->pc) w.rank = static_cast<int>(i) + 1;
    }
    w.share_pct = 100.0 * w.value / total;
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

std::string sass_opcode(const std::string& sass) {
  std::string s = trim(sass);
  if (!s.empty() && s[0] == '@') {  // predicate guard "@!P0"
    size_t sp = s.find_first_of(" \t");
    s = sp == std::string::npos ? "" : trim(s.substr(sp));
  }
  size_t end = s.find_first_of(" .\t,;");
  return s.substr(0, end);
}

bool is_library_source(const std::string& file) {
  std::string f = to_lower(file);
  for (const auto& row : language_rows())  // each language's library ("/cutlass/", "/site-packages/triton/")
    for (const auto& part : row.library_markers)
      if (f.find(part) != std::string::npos) return true;
  std::string base = std::filesystem::path(f).filename().string();
  if (base.rfind("cuda_", 0) == 0 || base.rfind("sm_", 0) == 0) return true;  // cuda_fp16.hpp, sm_90_rt.hpp
  return f.find("/cuda") != std::string::npos && f.find("/include/") != std::string::npos;
}

KernelHotLines hot_lines(const NcuRepKernel& k, const HotLinesOptions& o) {
  KernelHotLines r;
  r.kernel_id = k.id;
  r.kernel = k.name.empty() ? k.function : k.name;
  r.has_source_counters = !k.instructions.empty();
  if (!r.has_source_counters) {
    r.note =
        "the report has no per-instruction data (collect ncu's SourceCounters section: kprof profile "
        "--source, or ncu --section SourceCounters)";
    return r;
  }
  std::map<std::pair<std::string, int>, size_t> index;
  std::vector<LineAgg> lines;
  for (size_t i = 0; i < k.instructions.size(); ++i) {
    const auto& ins = k.instructions[i];
    r.total_samples += ins.counter(sm::kSamples);
    if (ins.line > 0) r.has_line_info = true;
    auto key = std::make_pair(ins.file, ins.line);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, lines.size()).first;
      lines.push_back({ins.file, ins.line, {}, {}});
    }
    LineAgg& a = lines[it->second];
    a.members.push_back(i);
    for (const auto& [n, v] : ins.counters) a.sums[n] += v;
  }
  r.too_few_samples = r.total_samples < kMinReliableSamples;
  SourceText text(k);
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return get(lines[a].sums, sm::kSamples) > get(lines[b].sums, sm::kSamples);
  });
  for (size_t i : order) {
    if (get(lines[i].sums, sm::kSamples) > 0 && lines[i].line > 0) ++r.lines_sampled;
    if (!r.has_line_info || lines[i].line <= 0 || r.lines.size() >= o.top) continue;
    if (get(lines[i].sums, sm::kSamples) <= 0) continue;
    HotLine h;
    h.where = SourceRef{lines[i].file, lines[i].line, text.line(lines[i].file, lines[i].line)};
    fill_line(h, lines[i], k, r.total_samples, o);
    h.library = is_library_source(h.where.file);
    if (h.library) h.via = user_line_before(k, lines[i].members.front(), text);
    r.lines.push_back(std::move(h));
  }
  for (const auto& ins : k.instructions) r.top_instructions.push_back(instruction_of(ins, r.total_samples));
  std::stable_sort(r.top_instructions.begin(), r.top_instructions.end(),
                   [](const HotInstruction& a, const HotInstruction& b) { return a.samples > b.samples; });
  if (r.top_instructions.size() > o.top) r.top_instructions.resize(o.top);
  r.waste = waste_sites(k, lines, r, text);
  if (!r.has_line_info)
    r.note =
        "this kernel has no line info (a library kernel such as cuBLAS, or a build without -lineinfo): "
        "ranked by SASS instruction instead";
  else if (r.total_samples <= 0)
    r.note = "no warp samples were collected for this kernel: lines cannot be ranked";
  return r;
}

namespace {

/// Calls `fn` on every instruction `h` shows.
template <typename H, typename Fn>
void each_shown(H& h, Fn fn) {
  for (auto& line : h.lines)
    for (auto& ins : line.instructions) fn(ins);
  for (auto& ins : h.top_instructions) fn(ins);
  for (auto& w : h.waste)
    if (w.instruction) fn(*w.instruction);
}

}  // namespace

std::vector<uint64_t> shown_pcs(const KernelHotLines& h) {
  std::set<uint64_t> pcs;
  each_shown(h, [&](const HotInstruction& ins) { pcs.insert(ins.pc); });
  return {pcs.begin(), pcs.end()};
}

void set_sass(KernelHotLines& h, const std::map<uint64_t, std::string>& sass) {
  each_shown(h, [&](HotInstruction& ins) {
    auto it = sass.find(ins.pc);
    if (it == sass.end()) return;
    ins.sass = it->second;
    ins.opcode = sass_opcode(it->second);
  });
}

KernelHotLines hot_lines_of_report(const NcuRep& rep, const NcuRepKernel& k, const HotLinesOptions& opts) {
  KernelHotLines h = hot_lines(k, opts);
  if (!rep.sass_deferred || !h.has_source_counters) return h;
  try {
    set_sass(h, read_ncu_rep_sass(rep.path, k.id, shown_pcs(h)));
  } catch (const Error& e) {
    h.note += std::string(h.note.empty() ? "" : "; ") + "the SASS text could not be read: " + e.what();
  }
  return h;
}

}  // namespace kprof
