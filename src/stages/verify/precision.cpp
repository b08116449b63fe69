#include "stages/verify/precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.hpp"

namespace kprof {
namespace {

/// Rounds `x` > 0 up to one significant digit: 0.26 -> 0.3, 1.2e-3 -> 2e-3.
double round_up_1sig(double x) {
  double p = std::pow(10.0, std::floor(std::log10(x)));
  return std::ceil(x / p - 1e-9) * p;
}

}  // namespace

std::optional<PrecisionDiagnosis> diagnose_precision(const std::vector<const OutputComparison*>& trials) {
  if (trials.empty()) return std::nullopt;
  const OutputComparison& first = *trials.front();
  if (first.dtype != DType::F32 && first.dtype != DType::F64) return std::nullopt;
  bool failed = false;
  double min_atol = 0, ref_max = std::numeric_limits<double>::infinity();
  PrecisionDiagnosis d;
  d.output = first.name;
  d.rtol = first.tol.rtol;
  d.nonzero_fraction = 1.0;
  d.spread = std::numeric_limits<double>::infinity();
  for (const OutputComparison* c : trials) {
    if (c->role != BufferRole::Output || c->never_written || c->nonfinite) return std::nullopt;
    failed = failed || !c->pass;
    if (c->ref_rms > 0) d.relative_rms = std::max(d.relative_rms, c->rms_error / c->ref_rms);
    if (c->rms_error > 0) {
      d.spread = std::min(d.spread, c->mean_abs / c->rms_error);
      d.peak_to_rms = std::max(d.peak_to_rms, c->max_abs / c->rms_error);
    }
    d.nonzero_fraction = std::min(d.nonzero_fraction, c->count ? double(c->nonzero_errors) / double(c->count) : 0.0);
    min_atol = std::max(min_atol, c->min_atol_at_rtol);
    ref_max = std::min(ref_max, c->ref_max_abs);
  }
  if (!failed) return std::nullopt;
  if (!std::isfinite(d.spread)) d.spread = 0;
  d.trials = static_cast<int>(trials.size());
  const double q = d.relative_rms;
  const bool tf32 = q < 1.5e-3;
  d.format = tf32 ? "TF32 or float16" : "bfloat16";
  d.unit_roundoff = tf32 ? kUnitRoundoffTf32Fp16 : kUnitRoundoffBf16;
  const double ratio = q / d.unit_roundoff;
  if (ratio < 0.1)
    d.why = fmt::format(
        "the RMS error is {} of the output's RMS, below 0.1 u of every reduced format (TF32/float16 "
        "u = 2^-11): too small to come from one; look at the few elements that fail",
        fmt_sig(q, 2));
  else if (ratio > 4)
    d.why = fmt::format(
        "the RMS error is {} of the output's RMS, more than 4 u of bfloat16 (u = 2^-8): larger than "
        "reduced-precision rounding leaves",
        fmt_sig(q, 2));
  else if (d.nonzero_fraction < 0.5)
    d.why = fmt::format("only {:.1f}% of the elements differ at all: rounding touches nearly every element",
                        100 * d.nonzero_fraction);
  else if (d.spread < 0.5 || d.peak_to_rms > 20)
    d.why = fmt::format(
        "the error is concentrated (mean |error| / RMS error {}, peak {}x the RMS error): rounding "
        "spreads evenly (about 0.8 and below 20x)",
        fmt_sig(d.spread, 2), fmt_sig(d.peak_to_rms, 3));
  else
    d.consistent = true;
  if (d.consistent && min_atol > 0) {
    double atol = round_up_1sig(2 * min_atol);
    if (atol < ref_max) d.suggested_atol = atol;
  }
  return d;
}

std::string precision_line(const PrecisionDiagnosis& d) {
  const std::string u = d.unit_roundoff == kUnitRoundoffBf16 ? "2^-8" : "2^-11";
  if (!d.consistent)
    return fmt::format("output '{}': not consistent with reduced-precision arithmetic: {}", d.output, d.why);
  std::string s = fmt::format(
      "output '{}': errors consistent with {} arithmetic (RMS error {} of the output's RMS = {} u, u = {}; "
      "spread over {:.1f}% of the elements, peak {}x the RMS error). That is a precision choice if {} was meant "
      "(in the kernel or in the reference), a bug otherwise",
      d.output, d.format, fmt_sig(d.relative_rms, 2), fmt_sig(d.relative_rms / d.unit_roundoff, 2), u,
      100 * d.nonzero_fraction, fmt_sig(d.peak_to_rms, 3), d.format);
  if (d.suggested_atol)
    s += fmt::format(
        ". To accept it: --atol {:g} (or `atol = {:g}` in ref.py) with rtol {:g}, which accepts all {} "
        "trial(s) with a 2x margin",
        *d.suggested_atol, *d.suggested_atol, d.rtol, d.trials);
  else
    s += ". No atol below the output's largest magnitude accepts it at this rtol; raise --rtol instead";
  return s + "; the verdict stays FAIL";
}

}  // namespace kprof
