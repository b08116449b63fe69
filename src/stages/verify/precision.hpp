// Telling a reduced-precision choice from a bug: when a float output fails, is the
// error pattern the one a reduced-precision format leaves (TF32 / float16 / bfloat16 products),
// and which --atol would accept it?
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/verify/compare.hpp"

namespace kprof {

/// Unit roundoff of the formats kprof recognises: TF32 and float16 keep 10 explicit mantissa
/// bits (u = 2^-11 = 4.88e-4; the two cannot be told apart by their errors), bfloat16 keeps 7
/// (u = 2^-8 = 3.91e-3).
constexpr double kUnitRoundoffTf32Fp16 = 1.0 / 2048.0;
constexpr double kUnitRoundoffBf16 = 1.0 / 256.0;

/// The verdict on one failing output, over every trial.
struct PrecisionDiagnosis {
  std::string output;           ///< the output's name
  bool consistent = false;      ///< the errors look like a reduced-precision format's
  std::string format;           ///< "TF32 or float16" / "bfloat16" (when consistent)
  double unit_roundoff = 0;     ///< that format's u
  double relative_rms = 0;      ///< RMS error / RMS of the reference (largest over trials)
  double spread = 0;            ///< mean |error| / RMS error (Gaussian-like errors: ~0.8; a few large: small)
  double nonzero_fraction = 0;  ///< share of elements with a non-zero error (smallest over trials)
  double peak_to_rms = 0;       ///< max |error| / RMS error (largest over trials)
  std::string why;              ///< one line: the reason for the verdict
  /// The tolerance that accepts every trial with a 2x margin: atol (rounded up to one
  /// significant digit) at the output's rtol. Set only when consistent and below the
  /// reference's largest magnitude (else kprof's own "atol dwarfs the reference" warning fires).
  std::optional<double> suggested_atol;
  double rtol = 0;  ///< the rtol that suggestion goes with (the one in force)
  int trials = 0;   ///< trials the suggestion was checked over
};

/// Diagnoses one output from its comparison in every trial (same output, one entry per trial).
/// Returns nullopt when nothing to diagnose: every trial passed, the dtype is not float32 or
/// float64, or the failure is not about values (never-written elements, NaN/Inf, a written input).
/// Rules (docs/REFERENCE.md, "Reduced precision"): relative RMS error q within [0.1 u, 4 u] of
/// TF32/float16 (q < 1.5e-3) or bfloat16 (q >= 1.5e-3, the geometric middle of the two formats'
/// typical q of about 1.5 u), spread >= 0.5, non-zero errors on >= 50% of elements and a peak of
/// at most 20x the RMS error.
std::optional<PrecisionDiagnosis> diagnose_precision(const std::vector<const OutputComparison*>& trials);

/// One line for the report, e.g. "errors consistent with TF32 or float16 arithmetic (RMS error
/// 1.6e-3 of the output's RMS = 3.3 u, u = 2^-11) ... pass --atol 0.6 ...; the verdict stays FAIL".
std::string precision_line(const PrecisionDiagnosis& d);

}  // namespace kprof
