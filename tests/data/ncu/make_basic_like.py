#!/usr/bin/env python3
"""Derives a `basic`-set-like raw export from a `--set full` one, for kprof's tests.

ncu's default set ("basic") collects the sections SpeedOfLight, LaunchStats, Occupancy and
WorkloadDistribution. This keeps only the identity columns, the device attributes and the metrics
those four section files name (ncu 2025.x sections/*.section, Header/Metrics/Body entries), and
drops the rest, so kprof's analysis of a report taken with another metric set can be tested
without a GPU. A real `ncu --csv --page raw` basic export from the H200 should replace it when
captured (it may hold a few more columns, e.g. the SOL breakdown metrics).

Usage: make_basic_like.py copy.raw.csv > copy.basic-like.raw.csv
"""
import csv
import sys

IDENTITY = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "CC"}

SPEED_OF_LIGHT = [
    "sm__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "gpc__cycles_elapsed.max",
    "l1tex__throughput.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed", "gpc__cycles_elapsed.avg.per_second",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram__cycles_elapsed.avg.per_second",
    "launch__waves_per_multiprocessor",
]
LAUNCH_STATS = [
    "launch__grid_size", "launch__func_cache_config", "launch__cluster_size",
    "launch__registers_per_thread", "launch__cluster_scheduling_policy",
    "launch__shared_mem_per_block_static", "launch__block_size", "launch__shared_mem_per_block_dynamic",
    "launch__thread_count", "launch__shared_mem_per_block_driver", "launch__waves_per_multiprocessor",
    "launch__shared_mem_config_size", "launch__uses_green_context", "launch__stack_size",
    "launch__sm_count", "launch__tpc_count", "launch__tpc_enabled",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct",
]
OCCUPANCY = [
    "smsp__warps_active.avg.peak_sustained", "smsp__maximum_warps_avg_per_active_cycle",
    "sm__maximum_warps_per_active_cycle_pct", "launch__occupancy_limit_registers",
    "sm__maximum_warps_avg_per_active_cycle", "launch__occupancy_limit_shared_mem",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__occupancy_limit_warps",
    "sm__warps_active.avg.per_cycle_active", "launch__occupancy_limit_blocks",
    "launch__occupancy_cluster_pct", "launch__occupancy_limit_barriers", "launch__cluster_max_active",
    "launch__cluster_max_potential_size", "launch__occupancy_cluster_gpu_pct",
    "launch__occupancy_per_register_count", "launch__occupancy_per_block_size",
    "launch__occupancy_per_shared_mem_size", "launch__occupancy_per_barrier_count",
    "launch__occupancy_per_cluster_size", "launch__barrier_count", "launch__shared_mem_per_block",
]
WORKLOAD_DISTRIBUTION = [
    f"{unit}__cycles_{kind}.{agg}"
    for unit in ("sm", "smsp", "l1tex", "lts", "dram")
    for kind, aggs in (("active", ("avg", "min", "max", "sum")), ("elapsed", ("sum",)))
    for agg in aggs
]
KEEP = set(SPEED_OF_LIGHT + LAUNCH_STATS + OCCUPANCY + WORKLOAD_DISTRIBUTION)


def main(path: str) -> None:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    keep = [i for i, name in enumerate(header)
            if name in IDENTITY or name in KEEP or name.startswith("device__attribute_")]
    out = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for row in rows:
        out.writerow([row[i] for i in keep])


if __name__ == "__main__":
    main(sys.argv[1])
