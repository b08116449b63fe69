// The build record kprof writes next to every .so it builds (`K.so.kprof-build.json`): the nvcc
// line, so that solve() is later read exactly as that build preprocessed it (kernel/signature_source.hpp)
// and `--build` knows when the flags changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// What `kprof build` (or --build) ran to make one .so.
struct BuildRecord {
  std::string source;                    ///< absolute path of the .cu
  std::vector<std::string> command;      ///< the nvcc argv (nvcc ... -o K.so K.cu)
  std::vector<std::string> extra_flags;  ///< the user's flags (after `--`), part of `command`
  std::string arch;                      ///< "sm_90a"
  std::string implementation;            ///< "cuda-cpp" / "cutlass"
  double so_mtime = -1;                  ///< the .so's modification time when recorded (s since epoch)
  long long so_size = -1;                ///< its size in bytes when recorded
  std::string key;                       ///< kernel/build_cache.hpp build_key of the inputs ("" = unknown)
};

/// "K.so.kprof-build.json" for "K.so".
std::string build_record_path(const std::string& so_path);

/// Writes the record for `so_path` (its current size and mtime are filled in), atomically.
/// Returns false (never throws) when it cannot be written: the record is an optimisation.
bool write_build_record(const std::string& so_path, BuildRecord record);

/// The record of `so_path` when it exists, parses, names `source` (compared as absolute paths)
/// and still describes the .so on disk (same size and mtime: not rebuilt by hand since).
/// Otherwise nullopt, with `why` (optional) saying which of these failed ("" when there is none).
std::optional<BuildRecord> read_build_record(const std::string& so_path, const std::string& source,
                                             std::string* why = nullptr);

}  // namespace kprof
