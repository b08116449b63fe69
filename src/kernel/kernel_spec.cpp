#include "kernel/kernel_spec.hpp"

namespace kprof {

Implementation spec_implementation(const KernelSpec& spec) {
  return resolve_implementation(spec.implementation, spec.kernel);
}

std::vector<std::string> spec_to_args(const KernelSpec& s) {
  std::vector<std::string> a = {s.kernel,
                                "--implementation",
                                implementation_name(spec_implementation(s)),
                                "--seed",
                                std::to_string(s.seed),
                                "--gpu",
                                std::to_string(s.gpu),
                                "--timeout",
                                std::to_string(s.timeout_s)};
  if (!s.so_path.empty()) a.insert(a.end(), {"--so", s.so_path});
  for (const auto& z : s.sizes) a.insert(a.end(), {"--size", z});
  if (s.ptr_size > 0) a.insert(a.end(), {"--ptr-size", std::to_string(s.ptr_size)});
  if (!s.arch.empty()) a.insert(a.end(), {"--arch", s.arch});
  for (const auto& d : s.dims.all()) a.push_back("--" + d.name + "=" + d.text);
  if (!s.nvcc_flags.empty()) {
    a.push_back("--");
    a.insert(a.end(), s.nvcc_flags.begin(), s.nvcc_flags.end());
  }
  return a;
}

std::string command_help(const KernelSpec& spec) {
  return spec.command.empty() ? std::string("the command's --help") : "`kprof " + spec.command + " --help`";
}

}  // namespace kprof
