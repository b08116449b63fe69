// The host as one value (core/host.hpp): the interpreter, the self-command and the CUPTI folders are
// read from it by python/interpreter, core/tools and device/cupti_loader; a ScopedHost restores.
#include <gtest/gtest.h>

#include "core/host.hpp"
#include "core/tools.hpp"
#include "device/cupti_loader.hpp"
#include "python/interpreter.hpp"

using namespace kprof;

TEST(Host, OneValueReadByTheThreeLayers) {
  EXPECT_FALSE(python_hosted());  // the test binary embeds its own Python
  const std::string own = python_executable();
  {
    Host h;
    h.python = "/venv/bin/python3";
    h.owns_stdout = false;
    h.self_command = {"/venv/bin/python3", "-m", "kprof"};
    h.cupti_dirs = {"/venv/lib/python3.12/site-packages/nvidia/cu13/lib"};
    ScopedHost hosted(h);
    EXPECT_TRUE(python_hosted());
    EXPECT_EQ(python_executable(), "/venv/bin/python3");
    EXPECT_EQ(self_command(), h.self_command);
    bool wheel = false;
    for (const auto& [dir, source] : cupti_search_dirs())
      wheel = wheel || (dir == h.cupti_dirs[0] && source == "wheel");
    EXPECT_TRUE(wheel);
    EXPECT_FALSE(current_host().owns_stdout);
  }
  EXPECT_FALSE(python_hosted());
  EXPECT_EQ(python_executable(), own);
  EXPECT_EQ(self_command(), std::vector<std::string>{self_exe_path()});
}
