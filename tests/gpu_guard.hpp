// Skips a GPU test, visibly and with the reason, on a machine without a usable GPU.
#pragma once

#include <gtest/gtest.h>

#include "device/cuda.hpp"

#define KPROF_REQUIRE_GPU()                                                 \
  do {                                                                      \
    std::string kprof_why_ = kprof::cuda_unavailable_reason();              \
    if (!kprof_why_.empty()) GTEST_SKIP() << "needs a GPU: " << kprof_why_; \
  } while (0)
