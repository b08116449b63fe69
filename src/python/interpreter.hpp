// The embedded Python interpreter: started lazily, once per process, only when a step needs it
// (a cuda-cpp `profile` never starts Python), and never finalized (PyTorch does not survive
// finalization; process exit cleans up).
//
// After start-up the GIL is released: every public function of src/python acquires it itself, so
// kernels and references may be called from any thread (the pipeline's watchdog worker). Start
// Python on the main thread when you can (call ensure_python() early): Python treats the thread
// that started it as its main thread (signal.signal() only works there).
//
// print() in ref.py and kernel modules goes to stderr (sys.stdout is sys.stderr), so kprof's
// stdout stays machine-readable.
//
// This header does not include pybind11; src/python/py_internal.hpp is the pybind11-level API
// the other files of src/python share.
#pragma once

#include <string>

namespace kprof {

/// Hosted mode: kprof runs inside a Python process that was started by Python itself (the `kprof`
/// package's extension module, python/kprof), not by kprof: the host (core/host.hpp) names its
/// sys.executable (Host::python). python_executable() returns it (KPROF_PYTHON is not read),
/// ensure_python() uses the running interpreter instead of starting one, and the probes and chart
/// workers run that same Python. Host::owns_stdout: the process is kprof's own (the console
/// script, `python -m kprof`), so print() in user code is sent to stderr as in the executable;
/// false leaves sys.stdout alone (a caller's notebook). True when the host names its Python.
bool python_hosted();

/// The Python executable whose installation the embedded interpreter uses: in hosted mode the
/// host's sys.executable; else $KPROF_PYTHON when
/// set (a path, or a name looked up on PATH), else the interpreter kprof was built against
/// (compile definition KPROF_PYTHON_EXECUTABLE). A virtual environment's bin/python works: its
/// pyvenv.cfg is found next to it and its site-packages are used, exactly as that interpreter
/// would. Throws Error (exit 2) when $KPROF_PYTHON names no existing file.
std::string python_executable();

/// "" when `executable` can serve as kprof's embedded Python as far as can be told without
/// starting it; else why not: a virtual environment (pyvenv.cfg next to bin/ or in it) whose
/// `version` / `version_info` major.minor differs from the Python kprof was built against.
std::string python_version_mismatch(const std::string& executable);

/// Starts the embedded interpreter if it is not running yet (thread-safe; at most one start per
/// process; a failed start is remembered and rethrown). Returns with the GIL released.
/// Throws Error (exit 1) when Python cannot start (message from PyStatus, hint on KPROF_PYTHON),
/// (exit 2) when $KPROF_PYTHON is wrong or names a virtual environment of another Python version.
void ensure_python();

/// True once ensure_python() succeeded. Never starts Python.
bool python_started();

/// Gives the calling thread (a worker thread kprof started) a Python thread state that is never
/// deleted, when Python is started; no-op otherwise or when the thread already has one. Call it
/// first thing on any new thread that may run Python code: pybind11's gil_scoped_acquire then
/// only counts up and down, instead of deleting the thread state when its last acquisition ends,
/// which crashed in CPython's tstate_delete_common with pybind11 2.10.3 and Python 3.11 (Debian
/// 12's pybind11). kprof never finalizes Python, so the kept state costs a few KiB per thread.
/// Never throws.
void adopt_python_thread();

/// "3.11.7": sys.version of the embedded interpreter (starts it).
std::string python_version();

/// Records the CUDA device PyTorch must use: before torch code runs on a thread (setup,
/// run_kernel, reference) kprof calls torch.cuda.set_device(gpu) on that thread, once, so torch
/// and kprof's own CUDA runtime share the primary context of the same GPU. Does not start Python
/// or import torch. Without a call, the device current in kprof's CUDA runtime on the calling
/// thread (cudaGetDevice) is used.
void python_select_gpu(int gpu);

/// Imports `module` ("torch", "triton", "cutlass.cute") in the embedded Python, starting it if
/// needed, so a later load finds it imported: the standby ncu session of `kprof run` imports what
/// its versions need while it waits. Returns "" or the import's error in one line. Never throws.
std::string python_preimport(const std::string& module);

/// Sets TRITON_CACHE_AUTOTUNING=1 in kprof's environment unless the user set it: Triton
/// (3.2 and later) then keeps each @triton.autotune result in its cache, so the ncu runner (kprof's
/// child, which inherits the variable) profiles the config the timing chose instead of autotuning
/// again under ncu, and a later run of the same kernel and sizes skips the autotuning. Returns the
/// value in effect ("1", or the user's). Call before any thread or child process starts.
std::string keep_triton_autotuning();

/// "" when `import torch` works in the embedded Python and torch.cuda.is_available(); else why
/// not, in one line ("PyTorch cannot be imported ...: ModuleNotFoundError: No module named
/// 'torch'"). Starts Python and imports torch (once per process, ~5 s with CUDA). Never throws.
std::string torch_unavailable_reason();

}  // namespace kprof
