#include "stages/ncu/value_range.hpp"

#include <cmath>
#include <fmt/format.h>

#include "core/text.hpp"

namespace kprof {

std::vector<InvalidValue> drop_invalid_values(KernelMetrics& k) {
  std::vector<InvalidValue> out;
  for (auto& [name, v] : k.metrics) {
    std::string why;
    if (!v.value) {
      if (auto x = parse_number(v.raw); x && !std::isfinite(*x)) why = "not a finite number";
    } else if (!v.raw_unit.empty() && *v.value < (v.raw_unit == "%" ? -kNegativePercentNoise : 0.0)) {
      why = "negative";
    } else if (v.raw_unit == "%" && name.find("pct") != std::string::npos && name.find(".max.") == std::string::npos &&
               name.rfind("derived__", 0) != 0 && *v.value > 100.0 + kPercentMargin) {
      why = fmt::format("a share of a whole above {:g}%", 100.0 + kPercentMargin);
    }
    if (why.empty()) continue;
    out.push_back({name, trim(v.raw), v.raw_unit, why});
    v.value.reset();
  }
  return out;
}

std::string describe(const InvalidValue& v) {
  return fmt::format("{} = {}{}: {}", v.metric, v.raw, v.unit.empty() ? "" : " " + v.unit, v.why);
}

}  // namespace kprof
