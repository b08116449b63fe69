#include "stages/verify/check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "device/fill.hpp"
#include "device/host_array.hpp"
#include "device/cuda.hpp"
#include "device/device_array.hpp"

namespace kprof {
namespace {

std::vector<HostArray> snapshot(const std::vector<BufferView>& views) {
  std::vector<HostArray> out;
  out.reserve(views.size());
  for (const auto& v : views) out.push_back(copy_to_host(v.name, v.dtype, v.count, v.ptr));
  return out;
}

/// The buffers of one first call: contents before and after it, the reference's device copies.
struct FirstCall {
  std::vector<HostArray> pre, post;
  std::vector<DeviceArray> copies;
  std::vector<RefTensorArg> ref_args;
};

/// First call into fresh buffers; fills `fc` (all buffers) and `guards`.
std::optional<KernelFault> first_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed, FirstCall& fc,
                                      std::vector<GuardViolation>& guards) {
  inst.prepare(seed);
  auto views = inst.buffers();
  fc.pre = snapshot(views);
  for (const auto& v : views) {
    fc.copies.push_back(
        DeviceArray::copy_of(v.ptr, v.count * dtype_size(v.dtype), "the reference's copy of " + v.name));
    fc.ref_args.push_back({v.name, v.dtype, v.count, fc.copies.back().get(), v.is_output, v.shape, false});
  }
  inst.reset_guards();
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  fc.post = snapshot(inst.buffers());
  guards = inst.check_guards();
  for (size_t b = 0; b < views.size(); ++b)
    fc.ref_args[b].kernel_changed = count_modified(fc.pre[b], fc.post[b], nullptr) > 0;
  return std::nullopt;
}

/// Second call with the outputs flagged in `fill` pre-filled with the sentinel; returns those
/// outputs after the call (others: empty arrays). Nothing runs when no flag is set.
std::optional<KernelFault> sentinel_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed,
                                         const std::vector<bool>& fill, std::vector<HostArray>& sentinel_out) {
  sentinel_out.assign(fill.size(), HostArray{});
  if (std::none_of(fill.begin(), fill.end(), [](bool f) { return f; })) return std::nullopt;
  inst.prepare(seed);
  auto views = inst.buffers();
  for (size_t b = 0; b < views.size(); ++b)
    if (fill[b]) fill_pattern(views[b].ptr, views[b].dtype, views[b].count, sentinel_bits(views[b].dtype));
  cuda_check(cudaDeviceSynchronize(), "kprof's sentinel fill");
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  views = inst.buffers();
  for (size_t b = 0; b < views.size(); ++b)
    if (fill[b]) sentinel_out[b] = copy_to_host(views[b].name, views[b].dtype, views[b].count, views[b].ptr);
  return std::nullopt;
}

void add_once(std::vector<std::string>& lines, const std::string& line) {
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

/// Compares one output buffer `b` (its pre/post contents, the reference's value, the sentinel
/// run) according to what the kernel and the reference did to it.
OutputComparison compare_buffer(const BufferView& v, const HostArray& pre, const HostArray& post,
                                const HostArray& expected, const HostArray& sentinel_out,
                                const std::vector<uint8_t>& ref_changed, size_t ref_changes, bool kernel_changed,
                                const Tolerance& tol) {
  if (!kernel_changed && ref_changes == 0) {
    OutputComparison c = compare_output(post, expected, tol);
    c.role = BufferRole::UnchangedInput;
    return c;
  }
  std::vector<uint8_t> flags;
  if (sentinel_out.count == v.count && v.count)
    flags = find_never_written(pre, post, sentinel_out, sentinel_bits(v.dtype), ref_changed);
  OutputComparison c = compare_output(post, expected, tol, flags);
  if (ref_changes == 0) {
    c.role = BufferRole::WrittenInput;
    if (!c.pass)
      c.reason = fmt::format("the reference leaves '{}' unchanged (an input?) but the kernel wrote into it: {}", v.name,
                             c.reason);
  }
  return c;
}

}  // namespace

Tolerance resolve_tolerance(DType dtype, const CheckOptions& opts, const ReferenceRunner* ref) {
  Tolerance t = default_tolerance(dtype);
  std::vector<std::string> from;
  if (opts.atol) {
    t.atol = *opts.atol;
    from.push_back("atol from --atol");
  } else if (ref && ref->atol()) {
    t.atol = *ref->atol();
    from.push_back("atol from ref.py");
  }
  if (opts.rtol) {
    t.rtol = *opts.rtol;
    from.push_back("rtol from --rtol");
  } else if (ref && ref->rtol()) {
    t.rtol = *ref->rtol();
    from.push_back("rtol from ref.py");
  }
  if (from.size() == 1)
    t.source = from[0] + ", other " + t.source;
  else if (from.size() == 2)
    t.source = from[0] + ", " + from[1];
  return t;
}

CheckResult run_check(KernelInstance& inst, const std::function<ReferenceRunner&()>& reference, const CheckOptions& o) {
  CheckResult res;
  bool python = is_python_impl(inst.implementation());
  for (int t = 0; t < std::max(1, o.trials); ++t) {
    TrialResult tr;
    tr.seed = o.seed + static_cast<uint64_t>(t);
    FirstCall fc;
    std::optional<KernelFault> fault = first_call(inst, o, tr.seed, fc, tr.guards);
    if (fault) {
      res.fault = fault;
      res.fault_trial = t;
      res.trials.push_back(tr);
      break;
    }
    ReferenceRunner& ref = reference();
    res.reference_origin = ref.origin();
    auto views = inst.buffers();
    auto restore = [&] {
      for (size_t b = 0; b < fc.copies.size(); ++b)
        fc.copies[b].upload(fc.pre[b].bytes.data(), fc.pre[b].bytes.size(), "the reference's copy of " + views[b].name);
    };
    ReferenceOutputs expected = ref.run(fc.ref_args, inst.scalars(), inst, restore);
    for (const auto& n : expected.notes) add_once(res.reference_notes, n);
    res.reference_precision = expected.precision;

    // What the reference changed decides which outputs get the sentinel run.
    std::vector<std::vector<uint8_t>> ref_changed(views.size());
    std::vector<size_t> ref_changes(views.size(), 0);
    std::vector<bool> fill(views.size(), false);
    for (size_t b = 0, oi = 0; b < views.size(); ++b) {
      if (!views[b].is_output) continue;
      ref_changed[b] = reference_changes(fc.pre[b], expected.outputs[oi++], &ref_changes[b]);
      fill[b] = fc.ref_args[b].kernel_changed || ref_changes[b] > 0;
    }
    std::vector<HostArray> sent;
    fault = sentinel_call(inst, o, tr.seed, fill, sent);
    if (fault) {
      res.fault = fault;
      res.fault_trial = t;
      res.trials.push_back(tr);
      break;
    }
    tr.pass = true;
    for (size_t b = 0, oi = 0; b < views.size(); ++b) {
      if (!views[b].is_output) {
        ModifiedInput m;
        m.name = views[b].name;
        m.elements = count_modified(fc.pre[b], fc.post[b], &m.first);
        m.fails = !python;
        if (m.elements) {
          tr.modified_inputs.push_back(m);
          if (m.fails) tr.pass = false;
        }
        continue;
      }
      Tolerance tol = resolve_tolerance(views[b].dtype, o, &ref);
      OutputComparison cmp = compare_buffer(views[b], fc.pre[b], fc.post[b], expected.outputs[oi++], sent[b],
                                            ref_changed[b], ref_changes[b], fc.ref_args[b].kernel_changed, tol);
      if (cmp.role == BufferRole::UnchangedInput) add_once(res.treated_as_inputs, cmp.name);
      if (!cmp.pass) tr.pass = false;
      if (cmp.role == BufferRole::Output && cmp.atol_dwarfs_reference && t == 0)
        res.warnings.push_back(fmt::format(
            "output '{}': atol={:g} is at least the reference's largest magnitude ({:.3g}): a kernel that wrote "
            "zeros would pass; lower atol (ref.py or --atol) or use inputs with larger values",
            cmp.name, tol.atol, cmp.ref_max_abs));
      tr.outputs.push_back(std::move(cmp));
    }
    if (!tr.guards.empty()) tr.pass = false;
    res.trials.push_back(std::move(tr));
  }
  res.pass = !res.fault && !res.trials.empty();
  for (const auto& tr : res.trials) res.pass = res.pass && tr.pass;
  if (!res.trials.empty()) {
    for (size_t i = 0; i < res.trials.front().outputs.size(); ++i) {
      std::vector<const OutputComparison*> per_trial;
      for (const auto& tr : res.trials)
        if (i < tr.outputs.size()) per_trial.push_back(&tr.outputs[i]);
      if (auto d = diagnose_precision(per_trial)) res.precision.push_back(*d);
    }
  }
  if (res.reference_precision.reduced_matmul())
    res.warnings.push_back(fmt::format(
        "the reference ran with reduced-precision float32 matrix products (torch.backends.cuda.matmul.allow_tf32={}, "
        "float32_matmul_precision='{}'): its own results carry TF32 rounding (u = 2^-11); set "
        "torch.backends.cuda.matmul.allow_tf32 = False and torch.set_float32_matmul_precision('highest') in ref.py "
        "for a float32 reference",
        res.reference_precision.matmul_tf32 ? "True" : "False", res.reference_precision.float32_matmul_precision));
  return res;
}

}  // namespace kprof
