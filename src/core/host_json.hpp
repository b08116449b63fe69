// The host (core/host.hpp) as one value in the requests a parent hands its children (issue 48):
// the child takes the parent's host rather than discovering it again.
//   {"python": "/venv/bin/python3" | null, "self_command": [...], "cupti_dirs": [...]}
#pragma once

#include <nlohmann/json.hpp>

#include "core/host.hpp"

namespace kprof {

/// `h` as JSON (owns_stdout left out: it describes one process, not the host).
nlohmann::json host_to_json(const Host& h);

/// The host in `j` (missing keys: the default). Throws Error (exit 2) naming the key whose value
/// has another type, or when `j` is not an object.
Host host_from_json(const nlohmann::json& j);

/// Takes the parent's host, as a child started by it: its self-command and its CUPTI wheel folders
/// when it names them (the parent's folders first, then any of this process's own it lacks: a
/// Slurm node may lack one). The interpreter and owns_stdout stay this process's own (they describe the
/// process: an executable child of the Python package embeds its own Python). Call before CUPTI
/// loads (device/cupti_loader.hpp reads the folders once).
void adopt_host(const Host& parent);

}  // namespace kprof
