// The small .ncu-rep embedded in kprof to set up ncu_report's disassembler early
// (warmup_report.cpp says what it holds and how it was made).
#pragma once

#include <string_view>

namespace kprof {

/// The embedded report's bytes (a whole .ncu-rep file: it starts with "NVR\0").
std::string_view warmup_report_bytes();

}  // namespace kprof
