#include "stages/ncu/source_section.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace kprof {

namespace {

// Metric names as in ncu 2025.3.1's sections/SourceCounters.section; the groups order the columns
// of Nsight Compute's source page.
const char* const kSectionText = R"SECTION(Identifier: "KprofSourceCounters"
DisplayName: "kprof Source Counters"
Description: "The per-instruction metrics of Nsight Compute's SourceCounters section that kprof's hot lines read: sampled warp stall reasons, instructions executed (threads, predication, divergent branch targets), L1 and L2 sectors and wavefronts with their ideal counts. Collected by kprof in place of SourceCounters (fewer instrumented counters, a shorter profiled call)."
Order: 100
MetricDefinitions {
  MetricDefinitions {
    Name: "derived__memory_l2_theoretical_sectors_global_excessive"
    Expression: "memory_l2_theoretical_sectors_global - memory_l2_theoretical_sectors_global_ideal"
  }
  MetricDefinitions {
    Name: "derived__memory_l1_wavefronts_shared_excessive"
    Expression: "memory_l1_wavefronts_shared - memory_l1_wavefronts_shared_ideal"
  }
}
Group {
  Name: "group_warp_stall"
  Label: "Warp Stall Sampling"
}
Group {
  Name: "group_inst_executed"
  Label: "Instructions Executed"
}
Group {
  Name: "group_l1"
  Label: "L1"
}
Group {
  Name: "group_l2"
  Label: "L2"
}
Body {
  DisplayName: "Hotspot Locations"
  Items {
    HorizontalContainer {
      Items {
        SourceMetricTable {
          Label: "Warp Stall Sampling (All Samples)"
          Metrics {
            Name: "group:smsp__pcsamp_warp_stall_reasons"
          }
        }
      }
      Items {
        SourceMetricTable {
          Label: "Most Instructions Executed"
          Metrics {
            Label: "Instructions Executed"
            Name: "inst_executed"
          }
        }
      }
    }
  }
}
SourceMetrics {
  Metrics {
    Label: "Warp Stall Sampling (All Samples)"
    Name: "group:smsp__pcsamp_warp_stall_reasons"
    Groups: "group_warp_stall"
  }
  Metrics {
    Label: "# Samples"
    Name: "smsp__pcsamp_sample_count"
    Groups: "group_warp_stall"
  }
  Metrics {
    Label: "Instructions Executed"
    Name: "inst_executed"
    Groups: "group_inst_executed"
  }
  Metrics {
    Label: "Thread Instructions Executed"
    Name: "thread_inst_executed"
    Groups: "group_inst_executed"
  }
  Metrics {
    Label: "Predicated-On Thread Instructions Executed"
    Name: "thread_inst_executed_true"
    Groups: "group_inst_executed"
  }
  Metrics {
    Label: "Divergent Branch Targets (Threads)"
    Name: "smsp__branch_targets_threads_divergent"
    Groups: "group_inst_executed"
  }
  Metrics {
    Label: "L1 Tag Requests Global"
    Name: "memory_l1_tag_requests_global"
    Groups: "group_l1"
  }
  Metrics {
    Label: "L1 Wavefronts Shared"
    Name: "memory_l1_wavefronts_shared"
    Groups: "group_l1"
  }
  Metrics {
    Label: "L1 Wavefronts Shared Ideal"
    Name: "memory_l1_wavefronts_shared_ideal"
    Groups: "group_l1"
  }
  Metrics {
    Label: "L1 Wavefronts Shared Excessive"
    Name: "derived__memory_l1_wavefronts_shared_excessive"
    Groups: "group_l1"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Global"
    Name: "memory_l2_theoretical_sectors_global"
    Groups: "group_l2"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Global Ideal"
    Name: "memory_l2_theoretical_sectors_global_ideal"
    Groups: "group_l2"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Global Excessive"
    Name: "derived__memory_l2_theoretical_sectors_global_excessive"
    Groups: "group_l2"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Local"
    Name: "memory_l2_theoretical_sectors_local"
    Groups: "group_l2"
  }
}
)SECTION";

}  // namespace

std::string kprof_source_section_dir_name() {
  uint64_t h = kFnvOffset;
  fnv1a(h, kSectionText);
  return fmt::format("ncu-sections-{:016x}", h);
}

const std::string& kprof_source_section_text() {
  static const std::string text = kSectionText;
  return text;
}

}  // namespace kprof
