// kprof build: compile a cuda-cpp / cutlass kernel into the .so that check / profile load.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/implementation.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "kernel/build.hpp"

namespace kprof {
namespace {

struct BuildCli {
  std::string kernel, implementation, arch, output;
  int gpu = 0;
  double timeout_s = 600;
  std::vector<std::string> nvcc_flags;
};

int run_build(const BuildCli& o) {
  BuildOptions b;
  b.source = o.kernel;
  b.impl = resolve_implementation(o.implementation, o.kernel);
  b.arch = o.arch;
  b.gpu = o.gpu;
  b.output = o.output;
  b.extra_flags = o.nvcc_flags;
  b.timeout_s = o.timeout_s;
  b.echo = false;
  BuildResult r = build_kernel(b);
  std::printf("%s\n", shell_join(r.command).c_str());
  if (!r.log.empty()) std::fprintf(stderr, "%s\n", r.log.c_str());
  std::printf("built %s (%s, %s, %s)\n", r.output.c_str(), implementation_name(b.impl).c_str(), r.arch.c_str(),
              fmt_duration_ms(r.wall_s * 1000.0).c_str());
  return 0;
}

}  // namespace

void register_build(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<BuildCli>();
  auto* sub =
      app.add_subcommand("build", "Compile a cuda-cpp / cutlass KERNEL.cu into the .so that check and profile load");
  sub->footer(
      "Compiles KERNEL.cu (extern \"C\" void solve(...)) into a shared library with nvcc: -O3, -shared, -fPIC,\n"
      "C++17, -lineinfo, for the GPU's own architecture (sm_90a when the source uses wgmma / setmaxnreg / TMA,\n"
      "and always for cutlass on sm_90); cutlass adds the CUTLASS include folders (CUTLASS_PATH, CUTLASS_ROOT,\n"
      "CUTLASS_HOME, standard places or the nvidia-cutlass pip package) and the flags CUTLASS needs.\n"
      "Extra nvcc flags go after `--`. Exit 0 built, 1 nvcc failed (its messages are shown), 2 bad input.");
  sub->add_option("kernel", o->kernel, "The .cu file")->required();
  sub->add_option("--implementation,--backend", o->implementation, "cuda-cpp (default) or cutlass");
  sub->add_option("--arch", o->arch, "nvcc architecture (sm_90, sm_90a, ...); default: the GPU's own");
  sub->add_option("-o,--output", o->output, "Output .so (default: KERNEL.so next to KERNEL.cu)");
  sub->add_option("--gpu", o->gpu, "CUDA device whose architecture is used")
      ->capture_default_str()
      ->check(CLI::Range(0, 4095));
  sub->add_option("--timeout", o->timeout_s, "nvcc time limit in seconds")
      ->capture_default_str()
      ->check(positive_number());
  sub->add_option("nvcc_flags", o->nvcc_flags, "Extra nvcc flags, after `--` (e.g. -- -lcuda -Xptxas -v)");
  sub->callback([&action, o] { action = [o] { return run_build(*o); }; });
}

}  // namespace kprof
