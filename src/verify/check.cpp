#include "verify/check.hpp"

#include <fmt/format.h>

#include "buffers/fill.hpp"
#include "buffers/host_array.hpp"
#include "core/cuda.hpp"
#include "verify/device_ops.hpp"

namespace kprof {
namespace {

std::vector<HostArray> snapshot(const std::vector<BufferView>& views) {
  std::vector<HostArray> out;
  out.reserve(views.size());
  for (const auto& v : views) out.push_back(copy_to_host(v.name, v.dtype, v.count, v.ptr));
  return out;
}

/// First call into fresh buffers; fills `pre` and `post` (all buffers) and the ref copies.
std::optional<KernelFault> first_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed,
                                      std::vector<HostArray>& pre, std::vector<HostArray>& post,
                                      std::vector<DeviceArray>& copies, std::vector<RefTensorArg>& ref_args,
                                      std::vector<GuardViolation>& guards) {
  inst.prepare(seed);
  auto views = inst.buffers();
  pre = snapshot(views);
  copies.clear();
  ref_args.clear();
  for (const auto& v : views) {
    copies.push_back(DeviceArray::copy_of(v.ptr, v.count * dtype_size(v.dtype), "the reference's copy of " + v.name));
    ref_args.push_back({v.name, v.dtype, v.count, copies.back().get(), v.is_output, v.shape});
  }
  inst.reset_guards();
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  post = snapshot(inst.buffers());
  guards = inst.check_guards();
  return std::nullopt;
}

/// Second call with outputs pre-filled with the sentinel; returns outputs after the call.
std::optional<KernelFault> sentinel_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed,
                                         std::vector<HostArray>& sentinel_out) {
  inst.prepare(seed);
  for (const auto& v : inst.buffers())
    if (v.is_output) fill_pattern(v.ptr, v.dtype, v.count, sentinel_bits(v.dtype));
  cuda_check(cudaDeviceSynchronize(), "kprof's sentinel fill");
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  sentinel_out.clear();
  for (const auto& v : inst.buffers())
    if (v.is_output) sentinel_out.push_back(copy_to_host(v.name, v.dtype, v.count, v.ptr));
  return std::nullopt;
}

}  // namespace

Tolerance resolve_tolerance(DType dtype, const CheckOptions& opts, const ReferenceRunner* ref) {
  Tolerance t = default_tolerance(dtype);
  std::vector<std::string> from;
  if (opts.atol) { t.atol = *opts.atol; from.push_back("atol from --atol"); }
  else if (ref && ref->atol()) { t.atol = *ref->atol(); from.push_back("atol from ref.py"); }
  if (opts.rtol) { t.rtol = *opts.rtol; from.push_back("rtol from --rtol"); }
  else if (ref && ref->rtol()) { t.rtol = *ref->rtol(); from.push_back("rtol from ref.py"); }
  if (from.size() == 1) t.source = from[0] + ", other " + t.source;
  else if (from.size() == 2) t.source = from[0] + ", " + from[1];
  return t;
}

CheckResult run_check(KernelInstance& inst, const std::function<ReferenceRunner&()>& reference,
                      const CheckOptions& o) {
  CheckResult res;
  bool python = is_python_impl(inst.implementation());
  for (int t = 0; t < std::max(1, o.trials); ++t) {
    TrialResult tr;
    tr.seed = o.seed + static_cast<uint64_t>(t);
    std::vector<HostArray> pre, post, sent;
    std::vector<DeviceArray> copies;
    std::vector<RefTensorArg> ref_args;
    auto fault = first_call(inst, o, tr.seed, pre, post, copies, ref_args, tr.guards);
    if (!fault) fault = sentinel_call(inst, o, tr.seed, sent);
    if (fault) {
      res.fault = fault;
      res.fault_trial = t;
      res.trials.push_back(tr);
      break;
    }
    ReferenceRunner& ref = reference();
    res.reference_origin = ref.origin();
    auto views = inst.buffers();
    auto expected = ref.run(ref_args, inst.scalars(), inst);
    size_t oi = 0;
    tr.pass = true;
    for (size_t b = 0; b < views.size(); ++b) {
      if (!views[b].is_output) {
        ModifiedInput m;
        m.name = views[b].name;
        m.elements = count_modified(pre[b], post[b], &m.first);
        m.fails = !python;
        if (m.elements) {
          tr.modified_inputs.push_back(m);
          if (m.fails) tr.pass = false;
        }
        continue;
      }
      Tolerance tol = resolve_tolerance(views[b].dtype, o, &ref);
      auto flags = find_never_written(pre[b], post[b], sent[oi], sentinel_bits(views[b].dtype));
      auto cmp = compare_output(post[b], expected[oi], tol, flags);
      if (!cmp.pass) tr.pass = false;
      if (cmp.atol_dwarfs_reference && t == 0)
        res.warnings.push_back(fmt::format(
            "output '{}': atol={:g} is at least the reference's largest magnitude ({:.3g}): a kernel that wrote "
            "zeros would pass; lower atol (ref.py or --atol) or use inputs with larger values",
            cmp.name, tol.atol, cmp.ref_max_abs));
      tr.outputs.push_back(std::move(cmp));
      ++oi;
    }
    if (!tr.guards.empty()) tr.pass = false;
    res.trials.push_back(std::move(tr));
  }
  res.pass = !res.fault && !res.trials.empty();
  for (const auto& tr : res.trials) res.pass = res.pass && tr.pass;
  return res;
}

}  // namespace kprof
