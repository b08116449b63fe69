// kprof's own small Nsight Compute report, embedded in the binary (stages/ncu/ncu_rep.hpp
// warm_disassembler_early): src/stages/ncu/warmup.ncu-rep, kprof's probe kernel
// (stages/env/probe_kernel.cu, one block of 32 threads) profiled on an H200 with
// `ncu --clock-control none --section SourceCounters --import-source no -o warmup kprof __probe`
// (ncu 2025.3.1, 2026-12-02; 59,594 bytes). Its only use is to set up ncu_report's disassembler
// while ncu still runs.
#include "stages/ncu/warmup_report.hpp"

// .incbin keeps the bytes as they are; CMake rebuilds this file when the report changes
// (OBJECT_DEPENDS) and passes its path as KPROF_WARMUP_REPORT.
asm(".section .rodata\n"
    ".balign 16\n"
    ".global kprof_warmup_report_begin\n"
    "kprof_warmup_report_begin:\n"
    ".incbin \"" KPROF_WARMUP_REPORT
    "\"\n"
    ".global kprof_warmup_report_end\n"
    "kprof_warmup_report_end:\n"
    ".previous\n");

extern "C" const char kprof_warmup_report_begin[];
extern "C" const char kprof_warmup_report_end[];

namespace kprof {

std::string_view warmup_report_bytes() {
  return {kprof_warmup_report_begin, static_cast<size_t>(kprof_warmup_report_end - kprof_warmup_report_begin)};
}

}  // namespace kprof
