#include "stages/timing/attribution.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

namespace kprof {

namespace {

/// Index of the window containing host/GPU time `t`, or -1.
long find_window(const std::vector<CallWindow>& w, uint64_t t) {
  auto it = std::upper_bound(w.begin(), w.end(), t, [](uint64_t v, const CallWindow& c) { return v < c.begin_ns; });
  if (it == w.begin()) return -1;
  --it;
  return t <= it->end_ns ? static_cast<long>(it - w.begin()) : -1;
}

double ns_to_ms(uint64_t ns) { return static_cast<double>(ns) * 1e-6; }

}  // namespace

size_t drop_kernels_named(std::vector<KernelRecord>& kernels, const std::string& name) {
  const size_t before = kernels.size();
  kernels.erase(std::remove_if(kernels.begin(), kernels.end(), [&](const KernelRecord& k) { return k.name == name; }),
                kernels.end());
  return before - kernels.size();
}

Attribution attribute_kernels(const std::vector<KernelRecord>& kernels, const std::vector<ApiRecord>& apis,
                              std::vector<CallWindow> windows) {
  std::sort(windows.begin(), windows.end(),
            [](const CallWindow& a, const CallWindow& b) { return a.begin_ns < b.begin_ns; });
  std::unordered_map<uint32_t, uint64_t> api_start;
  for (const auto& a : apis) {
    auto [it, fresh] = api_start.emplace(a.correlation_id, a.start_ns);
    if (!fresh) it->second = std::min(it->second, a.start_ns);  // runtime + driver share an id
  }
  Attribution out;
  out.per_call.resize(windows.size());
  for (const auto& k : kernels) {
    long idx;
    auto it = k.correlation_id != 0 ? api_start.find(k.correlation_id) : api_start.end();
    if (it != api_start.end()) {
      idx = find_window(windows, it->second);
      if (idx >= 0) {
        ++out.by_correlation;
        const uint64_t ret = windows[static_cast<size_t>(idx)].return_ns;
        if (ret != 0 && it->second > ret) ++out.launched_after_return;
      }
    } else {
      idx = find_window(windows, k.start_ns);
      if (idx >= 0) ++out.by_time;
    }
    if (idx < 0)
      out.outside.push_back(k);
    else
      out.per_call[static_cast<size_t>(idx)].push_back(k);
  }
  for (auto& call : out.per_call)
    std::sort(call.begin(), call.end(),
              [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  return out;
}

uint64_t busy_ns(const std::vector<KernelRecord>& kernels) {
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  for (const auto& k : kernels)
    if (k.end_ns > k.start_ns) iv.emplace_back(k.start_ns, k.end_ns);
  std::sort(iv.begin(), iv.end());
  uint64_t total = 0, cur_b = 0, cur_e = 0;
  bool open = false;
  for (const auto& [b, e] : iv) {
    if (open && b <= cur_e) {
      cur_e = std::max(cur_e, e);
      continue;
    }
    if (open) total += cur_e - cur_b;
    cur_b = b;
    cur_e = e;
    open = true;
  }
  if (open) total += cur_e - cur_b;
  return total;
}

KernelTimeSummary summarize_kernels(const Attribution& a, std::optional<uint32_t> default_stream) {
  KernelTimeSummary s;
  const size_t ncalls = a.per_call.size();
  struct Acc {
    std::vector<double> launch_ms;
    std::vector<double> per_call_ms;
    std::set<uint32_t> streams;
  };
  std::map<std::string, Acc> by_name;
  std::set<uint32_t> other;
  for (size_t i = 0; i < ncalls; ++i) {
    const auto& call = a.per_call[i];
    uint64_t sum = 0;
    for (const auto& k : call) {
      const uint64_t d = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
      sum += d;
      Acc& acc = by_name[k.name];
      if (acc.per_call_ms.empty()) acc.per_call_ms.assign(ncalls, 0.0);
      acc.launch_ms.push_back(ns_to_ms(d));
      acc.per_call_ms[i] += ns_to_ms(d);
      acc.streams.insert(k.stream_id);
      if (default_stream && k.stream_id != *default_stream) other.insert(k.stream_id);
    }
    if (call.empty()) ++s.calls_without_kernels;
    s.sum_ms.push_back(ns_to_ms(sum));
    s.busy_ms.push_back(ns_to_ms(busy_ns(call)));
  }
  s.sum = summarize(s.sum_ms);
  s.busy = summarize(s.busy_ms);
  for (auto& [name, acc] : by_name) {
    KernelNameStats k;
    k.name = name;
    k.launches = acc.launch_ms.size();
    k.launches_per_call = ncalls ? static_cast<double>(k.launches) / static_cast<double>(ncalls) : 0;
    k.launch_ms = summarize(acc.launch_ms);
    k.per_call_ms_median = summarize(acc.per_call_ms).median;
    for (double v : acc.launch_ms) k.total_ms += v;
    k.streams.assign(acc.streams.begin(), acc.streams.end());
    s.kernels.push_back(std::move(k));
  }
  std::stable_sort(s.kernels.begin(), s.kernels.end(),
                   [](const KernelNameStats& x, const KernelNameStats& y) { return x.total_ms > y.total_ms; });
  s.other_streams.assign(other.begin(), other.end());
  for (size_t i = 0; i < ncalls; ++i) {
    auto seq = launch_sequence(a.per_call[i]);
    if (i == 0)
      s.call_sequence = std::move(seq);
    else if (seq != s.call_sequence)
      s.sequence_stable = false;
  }
  return s;
}

std::vector<std::string> launch_sequence(const std::vector<KernelRecord>& call) {
  std::vector<const KernelRecord*> order;
  for (const auto& k : call) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](const KernelRecord* x, const KernelRecord* y) {
    if (x->correlation_id != y->correlation_id && x->correlation_id && y->correlation_id)
      return x->correlation_id < y->correlation_id;
    return x->start_ns < y->start_ns;
  });
  std::vector<std::string> names;
  for (const KernelRecord* k : order) names.push_back(k->name);
  return names;
}

}  // namespace kprof
