// kprof build: compile a cuda-cpp / cutlass kernel into the .so that check / profile load.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/table_options.hpp"
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
  int gpu = kDefaultGpu;
  double timeout_s = kDefaultNvccTimeoutS;
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
  // "built K.so (cuda-cpp, sm_90, 2.1 s)"; "K.so is up to date (...)" / "K.so from cache (...)" when nvcc did not run.
  const std::string what = implementation_name(b.impl) + ", " + r.arch;
  if (r.how == "compiled")
    std::printf("built %s (%s, %s)\n", r.output.c_str(), what.c_str(), fmt_duration_ms(r.wall_s * 1000.0).c_str());
  else
    std::printf("%s %s (%s; same source, includes, flags and nvcc)\n", r.output.c_str(),
                r.how == "cache" ? "copied from the build cache" : "is up to date", what.c_str());
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
  auto* impl = add_table_option(sub, "build", "--implementation", o->implementation);
  add_table_option(sub, "build", "--backend", o->implementation)->excludes(impl);
  add_table_option(sub, "build", "--arch", o->arch);
  add_table_option(sub, "build", "--output", o->output);
  add_table_option(sub, "build", "--gpu", o->gpu);
  add_table_option(sub, "build", "--timeout", o->timeout_s);
  sub->add_option("nvcc_flags", o->nvcc_flags, "Extra nvcc flags, after `--` (e.g. -- -lcuda -Xptxas -v)");
  sub->callback([&action, o] { action = [o] { return run_build(*o); }; });
}

}  // namespace kprof
