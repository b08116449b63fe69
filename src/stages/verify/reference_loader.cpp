#include "stages/verify/reference_loader.hpp"

#include <chrono>
#include <thread>

#include "core/trace.hpp"
#include "python/interpreter.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {
namespace {

/// ref.py in the embedded Python as a ReferenceRunner.
class PyReferenceRunner final : public ReferenceRunner {
 public:
  PyReferenceRunner(ReferenceModule mod, int gpu) : mod_(std::move(mod)), gpu_(gpu) {}
  std::optional<double> atol() const override { return mod_.atol(); }
  std::optional<double> rtol() const override { return mod_.rtol(); }
  std::string origin() const override { return mod_.path(); }
  ReferenceOutputs run(const std::vector<BufferView>& tensors, const std::vector<uint8_t>& kernel_changed,
                       const std::vector<ScalarArg>& scalars, const KernelInstance& inst,
                       const RestoreCopies& restore) override {
    python_select_gpu(gpu_);
    return mod_.call(tensors, scalars, &inst, kernel_changed, restore);
  }

 private:
  ReferenceModule mod_;
  int gpu_;
};

}  // namespace

std::unique_ptr<ReferenceRunner> load_reference(const std::string& path, int gpu) {
  ensure_python();
  python_select_gpu(gpu);
  return std::make_unique<PyReferenceRunner>(ReferenceModule::shared(path), gpu);
}

BackgroundReference::BackgroundReference(const std::string& path, int gpu) {
  ensure_python();  // on the calling (main) thread: Python treats its starting thread as main
  // A detached thread, not std::async: the future of std::async blocks in its destructor, so a
  // kernel fault that hangs the GPU (and with it PyTorch's CUDA start) would hang kprof on exit.
  auto promise = std::make_shared<std::promise<std::unique_ptr<ReferenceRunner>>>();
  future_ = promise->get_future();
  std::thread([promise, path, gpu] {
    adopt_python_thread();  // a thread state that outlives every gil_scoped_acquire (interpreter.hpp)
    trace_event("ref.py: load start");
    try {
      promise->set_value(load_reference(path, gpu));
      trace_event("ref.py: loaded");
    } catch (...) {
      trace_event("ref.py: load failed");
      promise->set_exception(std::current_exception());
    }
  }).detach();
}

bool BackgroundReference::ready() const {
  return ref_ || error_ || future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

ReferenceRunner& BackgroundReference::get() {
  if (ref_) return *ref_;
  if (error_) std::rethrow_exception(error_);
  try {
    ref_ = future_.get();
  } catch (...) {
    error_ = std::current_exception();
    throw;
  }
  return *ref_;
}

}  // namespace kprof
