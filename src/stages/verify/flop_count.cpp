#include "stages/verify/flop_count.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "core/dtype.hpp"
#include "stages/verify/flop_count_py.hpp"

namespace kprof {

namespace {

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}

/// ref.py path -> call key -> count. Never destroyed (read by threads that may outlive main's statics).
std::map<std::string, std::map<std::string, CountedFlops>>& registry() {
  static auto* r = new std::map<std::string, std::map<std::string, CountedFlops>>();
  return *r;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

}  // namespace

std::string reference_call_key(const std::vector<BufferView>& buffers, const std::vector<ScalarArg>& scalars) {
  std::string key;
  for (const auto& b : buffers) key += fmt::format("{}:{}:{};", b.name, dtype_name(b.dtype), b.count);
  for (const auto& s : scalars) key += fmt::format("{}={};", s.name, s.value);
  return key;
}

void record_counted_flops(const std::string& ref_path, const std::string& key, CountedFlops c) {
  std::string path = canonical(ref_path);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[path][key] = std::move(c);
}

std::optional<CountedFlops> counted_flops(const std::string& ref_path, const std::string& key) {
  std::string path = canonical(ref_path);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(path);
  if (it == registry().end()) return std::nullopt;
  auto k = it->second.find(key);
  if (k == it->second.end()) return std::nullopt;
  return k->second;
}

std::string counted_flops_how(const CountedFlops& c) {
  if (!c.total) return "FLOPs not counted: " + c.why;
  std::string ops;
  for (size_t i = 0; i < c.by_op.size() && i < 4; ++i)
    ops += fmt::format("{}{} {:.4g}", i ? ", " : "", c.by_op[i].first, c.by_op[i].second);
  if (c.by_op.size() > 4) ops += fmt::format(", {} more", c.by_op.size() - 4);
  if (*c.total <= 0)
    return "PyTorch's FlopCounterMode counted 0 FLOPs while reference() ran (it counts matrix products, "
           "convolutions and attention; the reference calls none)";
  return fmt::format("counted by PyTorch's FlopCounterMode while reference() ran: {:.4g} FLOPs ({})", *c.total, ops);
}

py::object call_counting_flops(py::handle fn, const py::dict& kwargs, CountedFlops& counted) {
  py::tuple r = kprof_helpers().attr("call_counting_flops")(fn, kwargs);
  counted = CountedFlops{};
  py::object count = r[1];
  if (py::isinstance<py::str>(count)) {
    counted.why = count.cast<std::string>();
    return r[0];
  }
  py::tuple t = count.cast<py::tuple>();
  counted.total = t[0].cast<double>();
  for (auto op : t[1].cast<py::list>()) {
    py::tuple pair = op.cast<py::tuple>();
    counted.by_op.emplace_back(pair[0].cast<std::string>(), pair[1].cast<double>());
  }
  return r[0];
}

}  // namespace kprof
