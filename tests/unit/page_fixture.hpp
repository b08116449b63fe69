// A six-version `kprof run` result for the page tests, assembled without a GPU by kprof's own
// functions from the committed H200 SGEMM progression (tests/data/gemmprog): each version's verdict
// from its real ncu export (analyze_ncu_csv), its columns (fill_ncu_columns), the comparison
// (compare_versions, comparison_json) and the decision (decide_versions over interleaved rounds).
// What is NOT real: the per-call samples and the rounds, drawn (fixed seed) around the real
// medians of times.tsv with 0.8% noise, since no GPU run's samples are committed. When a GPU is lent,
// the page of a real `kprof run --decide` replaces it (docs/gpu-runs.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/fs.hpp"
#include "report/comparison.hpp"
#include "report/decision_report.hpp"
#include "report/ncu_report.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/results/decision.hpp"
#include "stages/results/versions.hpp"

namespace kprof::testpage {

struct RunFixture {
  nlohmann::json comparison;                                     ///< comparison.json as the run writes it
  std::vector<std::pair<std::string, nlohmann::json>> profiles;  ///< each version's profile.json (ncu part)
};

inline std::string gemm_csv(int v) {
  return std::string(KPROF_TEST_DATA) + "/gemmprog/gemm_v" + std::to_string(v) + ".raw.csv";
}

/// The medians of times.tsv (ms), v0..v5.
inline std::vector<double> gemm_medians() {
  std::ifstream in(std::string(KPROF_TEST_DATA) + "/gemmprog/times.tsv");
  std::vector<double> out;
  std::string name;
  double ms;
  while (in >> name >> ms) out.push_back(ms);
  return out;
}

/// `versions` versions of the progression (from v0), `samples` samples each; `seed` varies the noise
/// (two seeds make two runs for `kprof compare`).
inline RunFixture gemm_run(size_t versions = 6, size_t samples = 40, unsigned seed = 1) {
  RunFixture f;
  std::vector<double> med = gemm_medians();
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.008);
  std::vector<VersionRow> rows;
  for (size_t v = 0; v < versions && v < med.size(); ++v) {
    NcuAnalysis a = analyze_ncu_csv(read_file(gemm_csv(static_cast<int>(v))));
    VersionRow r;
    r.name = "v" + std::to_string(v);
    r.kernel = "examples/gemm_progression/gemm_v" + std::to_string(v) + ".cu";
    r.folder = r.name;
    r.status = VersionStatus::Pass;
    r.profiled = true;
    for (size_t s = 0; s < samples; ++s) r.call_samples_ms.push_back(med[v] * std::exp(noise(rng)));
    std::vector<double> sorted = r.call_samples_ms;
    std::sort(sorted.begin(), sorted.end());
    r.call_ms = sorted[sorted.size() / 2];
    double mean = 0, var = 0;
    for (double x : sorted) mean += x / static_cast<double>(sorted.size());
    for (double x : sorted) var += (x - mean) * (x - mean) / static_cast<double>(sorted.size() - 1);
    r.call_std_ms = std::sqrt(var);
    fill_ncu_columns(r, &a.verdict, &a.table, true, "");
    rows.push_back(r);
    f.profiles.emplace_back(r.name, ncu_json(a.table, a.verdict));
  }
  std::string basis = choose_time_basis(rows);
  auto cmp = compare_versions(rows);
  f.comparison = comparison_json(
      rows, cmp, {{"GPU", "NVIDIA H200 (ncu exports; samples synthetic)"}, {"Dims", "M=N=K=4096"}}, basis);
  // Interleaved rounds: arm i per version, plus the A/A arm (the baseline again); round 5 throttled.
  RoundsResult rr;
  rr.versions = static_cast<int>(rows.size());
  rr.aa_arm = true;
  rr.stopped_by = "rounds";
  for (int i = 0; i < 30; ++i) {
    Round round;
    for (size_t v = 0; v <= rows.size(); ++v) {
      round.ms.push_back(med[v < rows.size() ? v : 0] * std::exp(noise(rng)));
      round.order.push_back(static_cast<int>(v));
    }
    round.cond.sm_mhz = i == 5 ? 1500 : 1980;
    rr.rounds.push_back(round);
  }
  rr.band = apply_band(rr.rounds, kRoundBandFrac);
  std::vector<int> arms;
  for (size_t v = 0; v < rows.size(); ++v) arms.push_back(static_cast<int>(v));
  f.comparison["decision"] = decision_json(decide_versions(rows, arms, rr, nullptr, DecisionRule{}));
  return f;
}

}  // namespace kprof::testpage
