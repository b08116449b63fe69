#include "stages/verify/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "device/fill.hpp"
#include "device/host_array.hpp"
#include "device/cuda.hpp"
#include "device/device_array.hpp"
#include "device/device_compare.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

/// Adds the seconds since `t0` to phase `name` of `res` (first-seen order) and restarts `t0`.
void lap(CheckResult& res, const std::string& name, Clock::time_point& t0) {
  const auto now = Clock::now();
  const double s = std::chrono::duration<double>(now - t0).count();
  t0 = now;
  for (auto& [n, v] : res.phases_s)
    if (n == name) {
      v += s;
      return;
    }
  res.phases_s.emplace_back(name, s);
}

/// Buffer `v` copied to the host, counted in `res.host_copy_bytes`.
HostArray to_host(CheckResult& res, const std::string& name, DType dtype, size_t count, const void* ptr) {
  HostArray a = copy_to_host(name, dtype, count, ptr);
  res.host_copy_bytes += a.bytes.size();
  return a;
}

/// The buffers of one first call: contents before and after it, the reference's device copies.
/// `pre`/`post` of an input (not is_output) the kernel left bit-identical stay empty: no rule
/// reads them (docs/REFERENCE.md), and the device copy holds its contents.
struct FirstCall {
  std::vector<HostArray> pre, post;
  std::vector<DeviceArray> copies;
  std::vector<BufferView> ref_args;     ///< the buffers as the reference gets them: over `copies`
  std::vector<uint8_t> kernel_changed;  ///< per buffer: the first call changed it (bit-wise)
};

/// First call into fresh buffers; fills `fc` and `guards`. Outputs are copied to the host before
/// and after the call; an input only when the GPU finds that the call changed it.
std::optional<KernelFault> first_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed, FirstCall& fc,
                                      std::vector<GuardViolation>& guards, CheckResult& res) {
  auto t0 = Clock::now();
  inst.prepare(seed);
  auto views = inst.buffers();
  cuda_check(cudaDeviceSynchronize(), "kprof's seeded fill");
  lap(res, "prepare", t0);
  fc.pre.assign(views.size(), HostArray{});
  fc.post.assign(views.size(), HostArray{});
  for (size_t b = 0; b < views.size(); ++b) {
    const BufferView& v = views[b];
    if (v.is_output) fc.pre[b] = to_host(res, v.name, v.dtype, v.count, v.ptr);
    fc.copies.push_back(
        DeviceArray::copy_of(v.ptr, v.count * dtype_size(v.dtype), "the reference's copy of " + v.name));
    fc.ref_args.push_back(v);
    fc.ref_args.back().ptr = fc.copies.back().get();
  }
  lap(res, "snapshots", t0);
  inst.reset_guards();
  auto fault = guarded_call(inst, o.timeout_s);
  lap(res, "first call", t0);
  if (fault) return fault;
  views = inst.buffers();
  guards = inst.check_guards();
  fc.kernel_changed.assign(views.size(), 0);
  for (size_t b = 0; b < views.size(); ++b) {
    const BufferView& v = views[b];
    if (!v.is_output && device_bytes_equal(fc.copies[b].get(), v.ptr, v.count * dtype_size(v.dtype), v.name.c_str()))
      continue;        // an untouched input: kernel_changed stays false
    if (!v.is_output)  // a changed input: both sides, for the indices in the report
      fc.pre[b] = to_host(res, v.name, v.dtype, v.count, fc.copies[b].get());
    fc.post[b] = to_host(res, v.name, v.dtype, v.count, v.ptr);
    fc.kernel_changed[b] = count_modified(fc.pre[b], fc.post[b], nullptr) > 0;
  }
  lap(res, "snapshots", t0);
  return std::nullopt;
}

/// Second call with the outputs flagged in `fill` pre-filled with the sentinel; returns those
/// outputs after the call (others: empty arrays). Nothing runs when no flag is set.
std::optional<KernelFault> sentinel_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed,
                                         const std::vector<bool>& fill, std::vector<HostArray>& sentinel_out,
                                         CheckResult& res) {
  sentinel_out.assign(fill.size(), HostArray{});
  if (std::none_of(fill.begin(), fill.end(), [](bool f) { return f; })) return std::nullopt;
  inst.prepare(seed);  // the never-written pass's own fresh buffers
  auto views = inst.buffers();
  for (size_t b = 0; b < views.size(); ++b)
    if (fill[b]) fill_pattern(views[b].ptr, views[b].dtype, views[b].count, sentinel_bits(views[b].dtype));
  cuda_check(cudaDeviceSynchronize(), "kprof's sentinel fill");
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  views = inst.buffers();
  for (size_t b = 0; b < views.size(); ++b)
    if (fill[b]) sentinel_out[b] = to_host(res, views[b].name, views[b].dtype, views[b].count, views[b].ptr);
  return std::nullopt;
}

/// A third call on fresh buffers of `seed`: its outputs flagged in `which` to the host.
std::optional<KernelFault> repeat_call(KernelInstance& inst, const CheckOptions& o, uint64_t seed,
                                       const std::vector<bool>& which, std::vector<HostArray>& out, CheckResult& res) {
  out.assign(which.size(), HostArray{});
  if (std::none_of(which.begin(), which.end(), [](bool f) { return f; })) return std::nullopt;
  inst.prepare(seed);
  cuda_check(cudaDeviceSynchronize(), "kprof's seeded fill (repeat call)");
  if (auto f = guarded_call(inst, o.timeout_s)) return f;
  auto views = inst.buffers();
  for (size_t b = 0; b < views.size(); ++b)
    if (which[b]) out[b] = to_host(res, views[b].name, views[b].dtype, views[b].count, views[b].ptr);
  return std::nullopt;
}

void add_once(std::vector<std::string>& lines, const std::string& line) {
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

/// The reference's changes to each output `b` (flags in `ref_changed[b]`, counted in
/// `ref_changes[b]`). For a Python kernel an output the reference left as it was in any element is
/// asked about once more (add_sentinel_reference_changes): setup() allocates outputs uninitialised,
/// and torch's caching allocator can hand it the block of an earlier reference result of the same
/// seed, the answer bit for bit, which one comparison reads as "the reference leaves it unchanged"
/// (a TF32 GEMM's real output C would be called an input). The reference then runs again with its
/// copies of those outputs holding the sentinel; a reference that fails on them keeps the first answer.
void reference_changes_of(ReferenceRunner& ref, KernelInstance& inst, const std::vector<BufferView>& views,
                          FirstCall& fc, const ReferenceOutputs& expected, const RestoreCopies& restore,
                          std::vector<std::vector<uint8_t>>& ref_changed, std::vector<size_t>& ref_changes,
                          CheckResult& res) {
  std::vector<size_t> out_index(views.size(), 0), again;
  for (size_t b = 0, oi = 0; b < views.size(); ++b) {
    if (!views[b].is_output) continue;
    out_index[b] = oi;
    ref_changed[b] = reference_changes(fc.pre[b], expected.outputs[oi++], &ref_changes[b]);
    if (is_python_impl(inst.implementation()) && ref_changes[b] < views[b].count) again.push_back(b);
  }
  if (again.empty()) return;
  auto sentinel_copies = [&] {
    restore();
    for (size_t b : again)
      fill_pattern(fc.copies[b].get(), views[b].dtype, views[b].count, sentinel_bits(views[b].dtype));
    cuda_check(cudaDeviceSynchronize(), "kprof's sentinel fill of the reference's copies");
  };
  sentinel_copies();
  ReferenceOutputs second;
  try {
    second = ref.run(fc.ref_args, fc.kernel_changed, inst.scalars(), inst, sentinel_copies);
  } catch (const Error& e) {
    add_once(res.reference_notes, fmt::format("the reference raised when called again with its copy of '{}' "
                                              "holding kprof's sentinel ({}): what it left unchanged is judged "
                                              "from its first call alone",
                                              views[again.front()].name, e.what()));
    return;
  }
  for (size_t b : again)
    ref_changes[b] = add_sentinel_reference_changes(ref_changed[b], views[b].dtype, second.outputs.at(out_index[b]));
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

namespace {

/// Step 3 of a trial: each buffer judged against the reference (outputs) or its pre-call contents
/// (inputs the kernel changed: a failure for a .cu kernel, a note for a Python one). Returns the
/// answer and tolerances the repeat call is compared with.
ExpectedOutputs compare_outputs(KernelInstance& inst, const CheckOptions& o, const ReferenceRunner& ref,
                                const std::vector<BufferView>& views, const FirstCall& fc,
                                const ReferenceOutputs& expected, const std::vector<HostArray>& sent,
                                const std::vector<std::vector<uint8_t>>& ref_changed,
                                const std::vector<size_t>& ref_changes, int t, TrialResult& tr, CheckResult& res) {
  const bool python = is_python_impl(inst.implementation());
  ExpectedOutputs exp;
  exp.seed = tr.seed;
  for (size_t b = 0, oi = 0; b < views.size(); ++b) {
    if (!views[b].is_output) {
      ModifiedInput m;
      m.name = views[b].name;
      if (fc.kernel_changed[b]) m.elements = count_modified(fc.pre[b], fc.post[b], &m.first);
      m.fails = !python;
      if (m.elements) {
        tr.modified_inputs.push_back(m);
        if (m.fails) tr.pass = false;
      }
      continue;
    }
    Tolerance tol = resolve_tolerance(views[b].dtype, o, &ref);
    const HostArray& want = expected.outputs[oi++];
    OutputComparison cmp = compare_buffer(fc.pre[b], fc.post[b], want, sent[b], ref_changed[b], ref_changes[b],
                                          fc.kernel_changed[b] != 0, tol);
    if (cmp.role == BufferRole::UnchangedInput) add_once(res.treated_as_inputs, cmp.name);
    if (!cmp.pass) tr.pass = false;
    if (cmp.role == BufferRole::Output && cmp.atol_dwarfs_reference && t == 0)
      res.warnings.push_back(fmt::format(
          "output '{}': atol={:g} is at least the reference's largest magnitude ({:.3g}): a kernel that wrote "
          "zeros would pass; lower atol (ref.py or --atol) or use inputs with larger values",
          cmp.name, tol.atol, cmp.ref_max_abs));
    if (cmp.role == BufferRole::Output) {
      exp.names.push_back(cmp.name);
      exp.values.push_back(want);
      exp.tolerances.push_back(tol);
    }
    tr.outputs.push_back(std::move(cmp));
  }
  return exp;
}

/// Step 4 of a trial: the repeat call on the same inputs, compared with the first call's answer and
/// tolerances (`exp`); a passing trial keeps `exp` in res.expected. A fault ends the trial.
std::optional<KernelFault> repeat_step(KernelInstance& inst, const CheckOptions& o,
                                       const std::vector<BufferView>& views, ExpectedOutputs exp, TrialResult& tr,
                                       CheckResult& res, Clock::time_point t0) {
  std::vector<bool> which(views.size(), false);
  for (size_t b = 0; b < views.size(); ++b)
    which[b] = views[b].is_output && std::find(exp.names.begin(), exp.names.end(), views[b].name) != exp.names.end();
  std::vector<HostArray> again;
  auto fault = repeat_call(inst, o, tr.seed, which, again, res);
  lap(res, "repeat call", t0);
  if (fault) return fault;
  std::vector<std::string> names;
  std::vector<HostArray> outputs;
  for (size_t b = 0; b < views.size(); ++b)
    if (which[b]) {
      names.push_back(views[b].name);
      outputs.push_back(std::move(again[b]));
    }
  // The same answer and tolerances as the first call's comparison (ExpectedOutputs).
  for (auto& cmp : compare_with_expected(exp, names, outputs)) {
    if (!cmp.pass) {
      tr.pass = false;
      cmp.reason = fmt::format(
          "a second call on the same inputs differs from the reference in {} of {} elements "
          "(the first call matched): state left by the first call, or a race",
          cmp.mismatches, cmp.count);
    }
    tr.repeat.push_back(std::move(cmp));
  }
  if (tr.pass) res.expected.push_back(std::move(exp));
  return std::nullopt;
}

/// One trial as steps: 1. the first call on fresh buffers; 2. the reference (and what it changed);
/// 3. the sentinel call, then each buffer compared; 4. the repeat call (only when the first passed).
/// A kernel fault in any call ends the trial: it is returned, and run_check's one fault exit records
/// it. `tr` holds what the trial reached.
std::optional<KernelFault> run_trial(KernelInstance& inst, const std::function<ReferenceRunner&()>& reference,
                                     const CheckOptions& o, int t, TrialResult& tr, CheckResult& res) {
  FirstCall fc;
  if (auto fault = first_call(inst, o, tr.seed, fc, tr.guards, res)) return fault;
  auto t0 = Clock::now();
  ReferenceRunner& ref = reference();
  lap(res, "reference wait", t0);
  res.reference_origin = ref.origin();
  auto views = inst.buffers();
  auto restore = [&] {  // an untouched input's pre-call contents are still in the kernel's buffer
    for (size_t b = 0; b < fc.copies.size(); ++b) {
      const std::string what = "the reference's copy of " + views[b].name;
      if (fc.pre[b].count == views[b].count && views[b].count)
        fc.copies[b].upload(fc.pre[b].bytes.data(), fc.pre[b].bytes.size(), what);
      else
        cuda_check(cudaMemcpy(fc.copies[b].get(), views[b].ptr, fc.copies[b].bytes(), cudaMemcpyDeviceToDevice), what);
    }
  };
  ReferenceOutputs expected = ref.run(fc.ref_args, fc.kernel_changed, inst.scalars(), inst, restore);
  lap(res, "reference", t0);
  for (const auto& n : expected.notes) add_once(res.reference_notes, n);
  res.reference_precision = expected.precision;

  // What the reference changed decides which outputs get the sentinel run.
  std::vector<std::vector<uint8_t>> ref_changed(views.size());
  std::vector<size_t> ref_changes(views.size(), 0);
  reference_changes_of(ref, inst, views, fc, expected, restore, ref_changed, ref_changes, res);
  std::vector<bool> fill(views.size(), false);
  for (size_t b = 0; b < views.size(); ++b)
    fill[b] = views[b].is_output && (fc.kernel_changed[b] || ref_changes[b] > 0);
  std::vector<HostArray> sent;
  lap(res, "compare", t0);
  auto fault = sentinel_call(inst, o, tr.seed, fill, sent, res);
  lap(res, "sentinel call", t0);
  if (fault) return fault;
  tr.pass = true;
  ExpectedOutputs exp = compare_outputs(inst, o, ref, views, fc, expected, sent, ref_changed, ref_changes, t, tr, res);
  if (tr.pass)
    if (auto f = repeat_step(inst, o, views, std::move(exp), tr, res, t0)) return f;
  if (!tr.guards.empty()) tr.pass = false;
  lap(res, "compare", t0);
  return std::nullopt;
}

/// The check's verdict over its trials, the precision diagnosis per output, and the reference's
/// reduced-precision warning.
void conclude_check(CheckResult& res) {
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
}

}  // namespace

CheckResult run_check(KernelInstance& inst, const std::function<ReferenceRunner&()>& reference, const CheckOptions& o) {
  return run_check_trials(
      o, [&](int t, TrialResult& tr, CheckResult& res) { return run_trial(inst, reference, o, t, tr, res); });
}

CheckResult run_check_trials(const CheckOptions& o, const CheckTrial& trial) {
  CheckResult res;
  for (int t = 0; t < std::max(1, o.trials); ++t) {
    TrialResult tr;
    tr.seed = o.seed + static_cast<uint64_t>(t);
    std::optional<KernelFault> fault = trial(t, tr, res);
    res.trials.push_back(std::move(tr));
    if (fault) {  // the one fault exit: the trial that faulted is the last
      res.fault = fault;
      res.fault_trial = t;
      break;
    }
  }
  conclude_check(res);
  return res;
}

}  // namespace kprof

namespace kprof {

std::vector<OutputComparison> compare_with_expected(const ExpectedOutputs& exp, const std::vector<std::string>& names,
                                                    const std::vector<HostArray>& outputs) {
  std::vector<OutputComparison> out;
  for (size_t i = 0; i < exp.names.size(); ++i) {
    auto it = std::find(names.begin(), names.end(), exp.names[i]);
    if (it == names.end()) continue;
    const HostArray& got = outputs.at(static_cast<size_t>(it - names.begin()));
    if (got.count != exp.values[i].count) continue;
    OutputComparison c = compare_output(got, exp.values[i], exp.tolerances[i]);
    c.name = exp.names[i];
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kprof
