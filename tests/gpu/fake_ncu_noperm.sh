#!/bin/sh
# A stand-in for ncu on a machine where counters are restricted to admin users: what the real ncu
# prints (ERR_NVGPUCTRPERM) and its exit code. The GPU suite runs `kprof profile` with
# KPROF_NCU pointing here to check kprof's message for that case on a machine that has permission.
echo "==PROF== Connected to process $$"
echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM" >&2
exit 1
