// A KernelInstance that needs no GPU, for the CPU tests of what is built around a kernel (report
// headers, the run flow driven by fakes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/kernel_instance.hpp"

namespace kprof::testutil {

/// A compiled cuda-cpp version, solve(const float* A, float* C, int N), with two buffers of 8 floats
/// (A input, C output) and N = 8; prepare() and call() do nothing.
class FakeKernel final : public KernelInstance {
 public:
  Implementation implementation() const override { return Implementation::CudaCpp; }
  std::string signature() const override { return "solve(const float* A, float* C, int N)"; }
  void prepare(uint64_t) override {}
  std::vector<BufferView> buffers() const override {
    return {{"A", DType::F32, 8, nullptr, false, {}}, {"C", DType::F32, 8, nullptr, true, {}}};
  }
  std::vector<ScalarArg> scalars() const override { return {{"N", 8, true}}; }
  void call() override {}
};

}  // namespace kprof::testutil
