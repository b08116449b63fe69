// Helpers shared by the embedded-Python tests (tests/unit/test_python*.cpp, tests/gpu/test_python*.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof_test {

/// Path of a fixture in tests/data/python.
inline std::string py_data(const std::string& name) { return std::string(KPROF_TEST_DATA) + "/python/" + name; }

/// 1-based number of the first line of `path` containing `marker`; 0 when none (the test fails).
inline int line_of(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "marker '" << marker << "' not found in " << path;
  return 0;
}

/// Runs `f`, which must throw kprof::Error; returns it (a default Error and a test failure if not).
inline kprof::Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const kprof::Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected kprof::Error, got std::exception: " << e.what();
    return kprof::Error(kprof::ExitCode::Ok, "");
  }
  ADD_FAILURE() << "expected kprof::Error, nothing was thrown";
  return kprof::Error(kprof::ExitCode::Ok, "");
}

/// A fresh empty folder under /tmp (left behind for inspection; tiny).
inline std::string temp_dir() {
  char tmpl[] = "/tmp/kprof_pytest_XXXXXX";
  const char* d = mkdtemp(tmpl);
  if (!d) ADD_FAILURE() << "mkdtemp failed";
  return d ? d : "/tmp";
}

}  // namespace kprof_test

/// Asserts that `msg` contains `part`, printing both when not.
#define EXPECT_HAS(msg, part) EXPECT_NE(std::string(msg).find(part), std::string::npos) << "in: " << (msg)
#define EXPECT_LACKS(msg, part) EXPECT_EQ(std::string(msg).find(part), std::string::npos) << "in: " << (msg)
