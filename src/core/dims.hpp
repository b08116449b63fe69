// Problem dimensions given on the command line (`--N=1024 --D=512`, `--alpha=0.5`) and the
// integer expressions of `--size NAME=EXPR` (`--size A=M*K`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kprof {

/// One `--NAME=VALUE` the options did not claim. `is_int` when VALUE is an integer literal.
struct Dim {
  std::string name;
  std::string text;  ///< VALUE as typed
  double value = 0;  ///< numeric value
  bool is_int = false;
};

/// The dimensions in command-line order.
class Dims {
 public:
  /// Adds or replaces a dimension. Throws Error (exit 2) when `text` is not a number.
  void set(const std::string& name, const std::string& text);
  /// True when `name` was given.
  bool has(const std::string& name) const;
  /// The dimension; throws Error (exit 2) "missing dimension --NAME=..." when absent.
  const Dim& get(const std::string& name) const;
  /// All dimensions, in the order given.
  const std::vector<Dim>& all() const { return dims_; }
  /// The integer dimensions only, as name -> value (values beyond int64_t saturate at its limits).
  std::map<std::string, int64_t> ints() const;
  /// "N=1024 D=512" for report headers.
  std::string to_string() const;

 private:
  std::vector<Dim> dims_;
};

/// Splits leftover command-line words of the form `--NAME=VALUE` into `dims`.
/// Throws Error (exit 2) for anything else (for example `--N 1024` without '=', or an unknown
/// flag), naming the word and showing the accepted form.
void parse_dim_args(const std::vector<std::string>& words, Dims& dims);

/// Longest `--size` expression eval_int_expr reads, in characters.
inline constexpr size_t kMaxExprLength = 1000;
/// Deepest nesting of parentheses and unary '-' eval_int_expr accepts (it recurses once per level).
inline constexpr int kMaxExprDepth = 64;

/// Evaluates an integer expression over dimension names: integers, names, + - * / and
/// parentheses ("M*K", "(N+1)*2"), in checked 64-bit arithmetic. Throws Error (exit 2) naming an
/// unknown name, a syntax error, a number or step that overflows int64_t, an expression longer
/// than kMaxExprLength or nested deeper than kMaxExprDepth.
int64_t eval_int_expr(const std::string& expr, const std::map<std::string, int64_t>& vars);

}  // namespace kprof
