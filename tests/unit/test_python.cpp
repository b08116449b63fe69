// The embedded interpreter, Python error messages and ref.py loading: everything that works
// without PyTorch or a GPU.
#include <gtest/gtest.h>

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <thread>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "stages/verify/reference_loader.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "stages/verify/reference.hpp"
#include "test_python_support.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof_test;
namespace py = pybind11;

// ---- interpreter ---------------------------------------------------------------------------

TEST(PythonInterpreter, StartsOnceAndReleasesTheGil) {
  ensure_python();
  EXPECT_TRUE(python_started());
  EXPECT_EQ(PyGILState_Check(), 0) << "the GIL must be released after start-up";
  ensure_python();  // a second call is a no-op
  std::string built = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION) + ".";
  EXPECT_EQ(python_version().rfind(built, 0), 0u) << python_version();
  EXPECT_EQ(PyGILState_Check(), 0);
}

TEST(PythonInterpreter, SysExecutableIsTheConfiguredPython) {
  const char* env = std::getenv("KPROF_PYTHON");
  if (!env || !*env) EXPECT_EQ(python_executable(), std::string(KPROF_PYTHON_EXECUTABLE));
  ensure_python();
  py::gil_scoped_acquire gil;
  // Libraries spawn sys.executable: it must be a python, never kprof itself.
  EXPECT_EQ(py::module_::import("sys").attr("executable").cast<std::string>(), python_executable());
}

TEST(PythonInterpreter, KprofPythonMustNameAFile) {
  Error e = error_of([] {
    kprof::testutil::ScopedEnv bad("KPROF_PYTHON", "/nonexistent/kprof/bin/python");
    python_executable();
  });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "KPROF_PYTHON=/nonexistent/kprof/bin/python");
  EXPECT_HAS(e.hint(), "bin/python");
}

TEST(PythonInterpreter, UserPrintGoesToStderr) {
  ensure_python();
  py::gil_scoped_acquire gil;
  py::module_ sys = py::module_::import("sys");
  EXPECT_TRUE(sys.attr("stdout").is(sys.attr("stderr")));
}

// The child half runs in a process started with KPROF_PYTHON=<venv>/bin/python.
TEST(PythonInterpreter, VirtualEnvironmentIsUsed) {
  if (const char* venv = std::getenv("KPROF_TEST_VENV_DIR")) {
    ensure_python();
    py::gil_scoped_acquire gil;
    py::module_ os_path = py::module_::import("os.path");
    auto real = [&](py::object p) { return os_path.attr("realpath")(p).cast<std::string>(); };
    py::module_ sys = py::module_::import("sys");
    EXPECT_EQ(real(sys.attr("prefix")), real(py::str(venv)));
    EXPECT_NE(real(sys.attr("prefix")), real(sys.attr("base_prefix")));
    bool venv_site = false;
    for (auto p : sys.attr("path"))
      if (real(py::reinterpret_borrow<py::object>(p)).rfind(real(py::str(venv)), 0) == 0) venv_site = true;
    EXPECT_TRUE(venv_site) << "no sys.path entry inside the virtual environment";
    return;
  }
  std::string dir = temp_dir() + "/venv";
  ProcessResult made = run_process({KPROF_PYTHON_EXECUTABLE, "-m", "venv", "--without-pip", dir}, {120.0});
  if (!made.ok()) GTEST_SKIP() << "cannot create a virtual environment here: " << made.combined();
  ProcessOptions opts;
  opts.timeout_s = 120;
  opts.env = {{"KPROF_PYTHON", dir + "/bin/python"}, {"KPROF_TEST_VENV_DIR", dir}};
  ProcessResult child =
      run_process({"/proc/self/exe", "--gtest_filter=PythonInterpreter.VirtualEnvironmentIsUsed"}, opts);
  EXPECT_TRUE(child.ok()) << child.combined();
  EXPECT_HAS(child.out, "[  PASSED  ] 1 test");
}

// ---- error messages ------------------------------------------------------------------------

TEST(PythonErrors, SyntaxErrorReportsItsFileAndLine) {
  std::string path = py_data("ref_syntax_error.py");
  Error e = error_of([&] { ReferenceModule::load(path); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "ref_syntax_error.py:" + std::to_string(line_of(path, "def reference(a, b)")));
  EXPECT_HAS(e.what(), "SyntaxError");
  EXPECT_HAS(e.what(), "`def reference(a, b)`");
  EXPECT_LACKS(e.what(), "Traceback");
}

TEST(PythonErrors, ImportErrorShowsTheImportLine) {
  std::string path = py_data("ref_import_error.py");
  Error e = error_of([&] { ReferenceModule::load(path); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "ref_import_error.py:" + std::to_string(line_of(path, "import kprof_no_such")) + " in <module>");
  EXPECT_HAS(e.what(), "ModuleNotFoundError: No module named 'kprof_no_such_module_for_tests'");
}

TEST(PythonErrors, ExceptionNamesTheInnermostUserFrame) {
  std::string path = py_data("ref_raises.py");
  ReferenceModule ref = ReferenceModule::load(path);
  Error e = error_of([&] { ref.call({}, {{"N", 4, true}, {"scale", 1.5, false}}); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  std::string where = "ref_raises.py:" + std::to_string(line_of(path, "kprof-test-marker: raise")) + " in helper";
  EXPECT_HAS(e.what(), "reference raised an exception: " + where + ": ZeroDivisionError: ");
  EXPECT_HAS(e.what(), "division by zero  ->  ");
  EXPECT_HAS(e.what(), "->  `return total / 0");
  EXPECT_LACKS(e.what(), "Traceback");
  EXPECT_FALSE(e.hint().empty());
}

TEST(PythonErrors, VerboseModeAppendsTheTraceback) {
  ReferenceModule ref = ReferenceModule::load(py_data("ref_raises.py"));
  set_python_tracebacks(true);
  Error e = error_of([&] { ref.call({}, {{"N", 4, true}, {"scale", 1.5, false}}); });
  set_python_tracebacks(false);
  EXPECT_HAS(e.what(), "Traceback (most recent call last)");
  EXPECT_HAS(e.what(), "in reference");  // the outer frame is in the full traceback
}

// ---- ReferenceModule -----------------------------------------------------------------------

TEST(Reference, MissingFileIsAUsageError) {
  Error e = error_of([] { ReferenceModule::load("/nonexistent/ref.py"); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "/nonexistent/ref.py does not exist");
}

TEST(Reference, NonPythonFileIsAUsageError) {
  std::string dir = temp_dir();
  write_file_atomic(dir + "/ref.txt", "def reference(**kw):\n    return None\n");
  Error e = error_of([&] { ReferenceModule::load(dir + "/ref.txt"); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "not a .py file");
  Error folder = error_of([&] { ReferenceModule::load(dir); });
  EXPECT_EQ(folder.code(), ExitCode::Usage);
}

TEST(Reference, MissingReferenceFunction) {
  Error e = error_of([] { ReferenceModule::load(py_data("ref_no_reference.py")); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "defines no function `reference`");
  EXPECT_HAS(e.hint(), "def reference(**kwargs)");
}

TEST(Reference, ReferenceThatIsNotCallable) {
  Error e = error_of([] { ReferenceModule::load(py_data("ref_not_callable.py")); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "`reference` is a list, not a function");
}

TEST(Reference, ReadsModuleTolerances) {
  ReferenceModule ref = ReferenceModule::load(py_data("ref_tolerances.py"));
  ASSERT_TRUE(ref.atol().has_value());
  ASSERT_TRUE(ref.rtol().has_value());
  EXPECT_DOUBLE_EQ(*ref.atol(), 0.02);
  EXPECT_DOUBLE_EQ(*ref.rtol(), 0.0);
  ReferenceModule plain = ReferenceModule::load(py_data("ref_scalars.py"));
  EXPECT_FALSE(plain.atol().has_value());
  EXPECT_FALSE(plain.rtol().has_value());
}

TEST(Reference, RejectsToleranceThatIsNotANumber) {
  Error e = error_of([] { ReferenceModule::load(py_data("ref_bad_atol.py")); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "`atol` must be a number, got a str");
  Error neg = error_of([] { ReferenceModule::load(py_data("ref_negative_rtol.py")); });
  EXPECT_EQ(neg.code(), ExitCode::Usage);
  EXPECT_HAS(neg.what(), "`rtol` must be a finite number >= 0");
}

TEST(Reference, ScalarsArePassedWithTheirPythonTypes) {
  ReferenceModule ref = ReferenceModule::load(py_data("ref_scalars.py"));
  std::vector<HostArray> out = ref.call({}, {{"N", 1024, true}, {"alpha", 0.5, false}}).outputs;
  EXPECT_TRUE(out.empty());
  // The same reference rejects N given as a float: proves the types reach Python as declared.
  Error e = error_of([&] { ref.call({}, {{"N", 1024, false}, {"alpha", 0.5, false}}); });
  EXPECT_HAS(e.what(), "TypeError: N should be an int, got float");
}

TEST(Reference, ReturnValueMustBeAnOutputStructure) {
  ReferenceModule ref = ReferenceModule::load(py_data("ref_returns_int.py"));
  Error e = error_of([&] { ref.call({}, {}); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "reference returned an int");
  EXPECT_HAS(e.hint(), "return None");
}

TEST(Reference, ReloadRunsTheCurrentSource) {
  std::string dir = temp_dir();
  std::string path = dir + "/ref.py";
  write_file_atomic(path, "atol = 1.0\ndef reference(**kw):\n    return None\n");
  EXPECT_DOUBLE_EQ(*ReferenceModule::load(path).atol(), 1.0);
  // Rewritten within the same second: a .pyc keyed on mtime would run the old source.
  write_file_atomic(path, "atol = 2.0\ndef reference(**kw):\n    return None\n");
  EXPECT_DOUBLE_EQ(*ReferenceModule::load(path).atol(), 2.0);
  EXPECT_FALSE(path_exists(dir + "/__pycache__")) << "no bytecode is written next to user files";
}

TEST(Reference, SameFileNameInTwoFoldersLoadsBoth) {
  std::string a = temp_dir(), b = temp_dir();
  write_file_atomic(a + "/ref.py", "atol = 0.25\ndef reference(**kw):\n    return None\n");
  write_file_atomic(b + "/ref.py", "atol = 0.5\ndef reference(**kw):\n    return None\n");
  ReferenceModule ra = ReferenceModule::load(a + "/ref.py");
  ReferenceModule rb = ReferenceModule::load(b + "/ref.py");
  EXPECT_DOUBLE_EQ(*ra.atol(), 0.25);
  EXPECT_DOUBLE_EQ(*rb.atol(), 0.5);
}

TEST(Reference, SiblingModulesImport) {
  std::string dir = temp_dir();
  write_file_atomic(dir + "/kprof_sibling_helper.py", "FACTOR = 3.0\n");
  write_file_atomic(dir + "/ref.py",
                    "import kprof_sibling_helper\natol = kprof_sibling_helper.FACTOR\n"
                    "def reference(**kw):\n    return None\n");
  EXPECT_DOUBLE_EQ(*ReferenceModule::load(dir + "/ref.py").atol(), 3.0);
}

TEST(Reference, CallableFromAnotherThread) {
  ReferenceModule ref = ReferenceModule::load(py_data("ref_scalars.py"));
  std::string failure;
  std::thread worker([&] {
    try {
      ref.call({}, {{"N", 1024, true}, {"alpha", 0.5, false}});
      ref.call({}, {{"N", 1024, true}, {"alpha", 0.5, false}});
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  worker.join();
  EXPECT_EQ(failure, "");
  EXPECT_EQ(PyGILState_Check(), 0);
  // And the main thread still can.
  EXPECT_NO_THROW(ref.call({}, {{"N", 1024, true}, {"alpha", 0.5, false}}));
}

TEST(PythonErrors, GpuFaultsAreRecognised) {
  EXPECT_TRUE(is_gpu_fault_message("RuntimeError: CUDA error: an illegal memory access was encountered"));
  EXPECT_TRUE(is_gpu_fault_message("RuntimeError: Triton Error [CUDA]: misaligned address"));
  EXPECT_TRUE(is_gpu_fault_message("CUDAError: CUDA_ERROR_ILLEGAL_ADDRESS"));
  EXPECT_FALSE(is_gpu_fault_message("ZeroDivisionError: division by zero"));
  EXPECT_FALSE(is_gpu_fault_message("RuntimeError: shape '[9]' is invalid for input of size 8"));
}

TEST(PythonErrors, GpuFaultInsideReferenceIsExitOne) {
  std::string dir = temp_dir();
  write_file_atomic(
      dir + "/ref.py",
      "def reference(**kw):\n    raise RuntimeError('CUDA error: an illegal memory access was encountered')\n");
  Error e = error_of([&] { ReferenceModule::load(dir + "/ref.py").call({}, {}); });
  EXPECT_EQ(e.code(), ExitCode::Failed);
  EXPECT_HAS(e.what(), "ref.py:2 in reference: RuntimeError: CUDA error");
  EXPECT_HAS(e.hint(), "CUDA_LAUNCH_BLOCKING=1");
}

TEST(PythonInterpreter, VirtualEnvironmentOfAnotherVersionIsRefused) {
  std::string built = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
  std::string venv = temp_dir();
  make_dirs(venv + "/bin");
  write_file_atomic(venv + "/pyvenv.cfg", "home = /usr/bin\nversion = 2.7.18\n");
  std::string why = python_version_mismatch(venv + "/bin/python");
  EXPECT_HAS(why, "is Python 2.7, but kprof embeds Python " + built);
  // uv writes version_info; the same version is accepted.
  write_file_atomic(venv + "/pyvenv.cfg", "home = /usr/bin\nversion_info = " + built + ".4\n");
  EXPECT_EQ(python_version_mismatch(venv + "/bin/python"), "");
  // Not a virtual environment: nothing to tell before starting.
  EXPECT_EQ(python_version_mismatch(KPROF_PYTHON_EXECUTABLE), "");
}

TEST(Reference, BackgroundLoadFailureIsThrownAgainOnEveryGet) {
  // kprof run asks for the reference once per version: a ref.py that does not load must give the
  // same kprof error each time (a std::future gives its result only once).
  BackgroundReference ref(py_data("ref_no_reference.py"), 0);  // loads, but defines no reference()
  EXPECT_FALSE(ref.load_failed());
  Error first = error_of([&] { ref.get(); });
  EXPECT_EQ(first.code(), ExitCode::Usage);
  EXPECT_TRUE(ref.load_failed());
  Error second = error_of([&] { ref.get(); });
  EXPECT_EQ(second.code(), ExitCode::Usage);
  EXPECT_STREQ(first.what(), second.what());
}

TEST(Reference, BackgroundLoadGivesTheModuleOnEveryGet) {
  // Loads on kprof's loader thread (which crashed on its exit with pybind11 2.10.3 + Python 3.11
  // until the thread kept its Python thread state: adopt_python_thread).
  BackgroundReference ref(py_data("ref_tolerances.py"), 0);
  ReferenceRunner& a = ref.get();
  EXPECT_EQ(&a, &ref.get());
  EXPECT_FALSE(ref.load_failed());
  EXPECT_NE(a.origin().find("ref_tolerances.py"), std::string::npos);
}

TEST(PythonInterpreter, AdoptedWorkerThreadRunsPythonAgainAndAgain) {
  ensure_python();
  long total = 0;
  std::thread worker([&] {
    adopt_python_thread();
    adopt_python_thread();  // a second call is a no-op
    for (int i = 0; i < 3; ++i) {
      py::gil_scoped_acquire gil;  // each ends without deleting the thread state
      total += py::eval("20 + 1").cast<long>();
    }
  });
  worker.join();
  EXPECT_EQ(total, 63);
  py::gil_scoped_acquire gil;  // the main thread still gets the GIL
  EXPECT_EQ(py::eval("2 * 3").cast<long>(), 6);
}

TEST(Reference, SourceCheckFindsSyntaxErrorsAndAMissingReferenceWithoutRunningIt) {
  std::string bad = py_data("ref_syntax_error.py");
  Error e = error_of([&] { check_reference_source(bad); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "ref_syntax_error.py:" + std::to_string(line_of(bad, "def reference(a, b)")) + ": SyntaxError");
  Error none = error_of([&] { check_reference_source(py_data("ref_no_reference.py")); });
  EXPECT_HAS(none.what(), "defines no function `reference`");
  // Fine statically: a reference that raises when run, and one with tolerances.
  EXPECT_NO_THROW(check_reference_source(py_data("ref_raises.py")));
  EXPECT_NO_THROW(check_reference_source(py_data("ref_tolerances.py")));
  // Not a .py file: left to ReferenceModule::load, which says so.
  EXPECT_NO_THROW(check_reference_source(std::string(KPROF_SOURCE_DIR) + "/README.md"));
}
