#include "kernel/build.hpp"

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <regex>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"
#include "kernel/build_record.hpp"

namespace kprof {

bool uses_hopper_only_features(const std::string& src) {
  static const std::regex re(
      R"(wgmma|\bGMMA\b|setmaxnreg|warpgroup_reg_(alloc|dealloc)|cp\.async\.bulk|SM90_TMA|TmaWarpSpecialized|KernelTma)",
      std::regex::icase);
  return std::regex_search(src, re);
}

bool uses_blackwell_only_features(const std::string& src) {
  static const std::regex re(R"(tcgen05|\bUMMA\b|SM100_MMA|SM100_TMA)", std::regex::icase);
  return std::regex_search(src, re);
}

bool valid_arch(const std::string& arch) {
  static const std::regex re(R"(sm_[0-9]{2,3}[af]?)");
  return std::regex_match(arch, re);
}

std::string resolve_arch(const std::string& requested, const std::string& gpu_arch, Implementation impl,
                         const std::string& src, const std::string& gpu_error) {
  if (!requested.empty()) {
    if (!valid_arch(requested))
      throw usage_error(
          "--arch " + requested + " is not an nvcc architecture",
          "use sm_XX as nvcc spells it: sm_90 (H100/H200), sm_90a (Hopper wgmma/TMA), sm_80 (A100), sm_100a");
    return requested;
  }
  if (gpu_arch.empty())
    throw usage_error("no GPU to take the architecture from" + (gpu_error.empty() ? std::string() : ": " + gpu_error),
                      "pass --arch, e.g. --arch sm_90 for an H100/H200 (sm_90a for wgmma/TMA code)");
  int cc = 0;
  try {
    cc = std::stoi(gpu_arch.substr(3));
  } catch (...) {
    return gpu_arch;
  }
  bool specific = false;
  if (cc == 90) specific = uses_hopper_only_features(src);
  if (cc >= 100 && cc < 110) specific = uses_blackwell_only_features(src);
  if (impl == Implementation::Cutlass && cc >= 90) specific = true;
  return specific ? gpu_arch + "a" : gpu_arch;
}

std::string default_output(const std::string& source, const std::string& output) {
  if (!output.empty()) return output;
  if (source.find('/') == std::string::npos) return file_stem(source) + ".so";
  return join_path(parent_dir(source), file_stem(source) + ".so");
}

std::vector<std::string> nvcc_command(const std::string& nvcc, const std::string& source, const std::string& output,
                                      const std::string& arch, Implementation impl, const CutlassInstall* cutlass,
                                      const std::vector<std::string>& extra) {
  std::vector<std::string> cmd = {nvcc,         "-O3",   "-std=c++17", "-shared",
                                  "-Xcompiler", "-fPIC", "-lineinfo",  "-arch=" + arch};
  if (impl == Implementation::Cutlass && cutlass) {
    cmd.insert(cmd.end(), {"-I", cutlass->include_dir});
    if (!cutlass->util_include_dir.empty()) cmd.insert(cmd.end(), {"-I", cutlass->util_include_dir});
    cmd.insert(cmd.end(), {"--expt-relaxed-constexpr", "--expt-extended-lambda", "-DNDEBUG"});
  }
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  cmd.insert(cmd.end(), {"-o", output, source});
  return cmd;
}

bool needs_rebuild(const std::string& cu, const std::string& so) {
  double so_t = file_mtime(so);
  if (so_t < 0) return true;
  return file_mtime(cu) > so_t;
}

BuildResult build_kernel(const BuildOptions& opts) {
  if (!path_exists(opts.source))
    throw usage_error("kernel source '" + opts.source + "' not found", "give the path of a .cu file");
  if (is_python_impl(opts.impl))
    throw usage_error("kprof build compiles cuda-cpp and cutlass kernels; a " + implementation_name(opts.impl) +
                          " module is Python and needs no build",
                      "run `kprof check " + opts.source + " ...` directly");
  std::string text = read_file(opts.source);

  std::optional<CutlassInstall> cutlass;
  if (opts.impl == Implementation::Cutlass) {
    CutlassLookup look = locate_cutlass();
    if (!look.found) throw usage_error("CUTLASS headers not found: " + look.error, look.fix);
    cutlass = look.found;
  }

  std::string gpu_arch_name, gpu_error;
  if (opts.arch.empty()) {
    gpu_error = cuda_unavailable_reason();
    if (gpu_error.empty()) {
      int n = 0;
      cudaGetDeviceCount(&n);
      if (opts.gpu < 0 || opts.gpu >= n)
        throw usage_error("--gpu " + std::to_string(opts.gpu) + " is out of range: " + std::to_string(n) +
                          " device(s)");
      gpu_arch_name = gpu_arch(opts.gpu);
    }
  }
  BuildResult res;
  res.arch = resolve_arch(opts.arch, gpu_arch_name, opts.impl, text, gpu_error);
  if (!opts.arch.empty() && opts.arch == "sm_90" && uses_hopper_only_features(text))
    print_warning(opts.source + " uses Hopper-only instructions (wgmma / setmaxnreg / TMA): they need --arch sm_90a");

  std::string nvcc = nvcc_path();
  if (nvcc.empty())
    throw check_failed("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)",
                       "install the CUDA toolkit or add its bin/ folder to PATH");
  res.output = default_output(opts.source, opts.output);
  make_dirs(parent_dir(res.output));
  std::string tmp = res.output + ".tmp" + std::to_string(::getpid()) + ".so";
  res.command =
      nvcc_command(nvcc, opts.source, res.output, res.arch, opts.impl, cutlass ? &*cutlass : nullptr, opts.extra_flags);
  std::vector<std::string> run = res.command;
  run[run.size() - 2] = tmp;
  if (opts.echo) print_progress(shell_join(res.command));

  ProcessOptions po;
  po.timeout_s = opts.timeout_s;
  ProcessResult r = run_process(run, po);
  res.wall_s = r.wall_s;
  res.log = trim(r.combined());
  if (!r.ok()) {
    std::remove(tmp.c_str());
    if (r.timed_out)
      throw check_failed(
          "nvcc did not finish compiling " + opts.source + " within " + fmt_sig(opts.timeout_s, 3) + " s",
          "raise the limit with --timeout, or simplify the kernel's templates");
    if (r.not_found) throw check_failed("cannot run " + nvcc + ": " + trim(r.err), "check the CUDA toolkit install");
    throw check_failed(
        "nvcc failed to compile " + opts.source + " (exit " + std::to_string(r.exit_code) + "):\n" + res.log,
        "fix the errors nvcc reports above; the command was: " + shell_join(res.command));
  }
  if (std::rename(tmp.c_str(), res.output.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw usage_error("cannot write '" + res.output + "'", "check that its folder is writable");
  }
  BuildRecord rec;  // the flags, so solve() is later read as this build preprocessed it
  rec.source = opts.source;
  rec.command = res.command;
  rec.extra_flags = opts.extra_flags;
  rec.arch = res.arch;
  rec.implementation = implementation_name(opts.impl);
  if (!write_build_record(res.output, rec))
    print_warning("could not write " + build_record_path(res.output) +
                  ": solve() will be read with kprof build's default flags");
  return res;
}

}  // namespace kprof
