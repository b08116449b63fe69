// Builds kprof need not repeat: a .so is keyed on what makes it, so an unchanged version
// is never rebuilt and a rebuilt one is compiled only when its inputs changed, whatever the file
// times say (an edited header counts; a touched file does not).
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// The content key of one build, as 16 hex digits: 64-bit FNV-1a over "kprof-build-v1", the nvcc
/// argv without its `-o` path, nvcc's identity (its path, size and mtime) and the path and text of
/// the source and of every non-system file its host preprocessing includes (nvcc's own host `-E`
/// step with the same flags, kernel/preprocess.hpp; the device-only branches of those files are
/// in their text too). "" when the files cannot be read (the build then runs uncached).
std::string build_key(const std::vector<std::string>& nvcc_argv, const std::string& source);

/// The folder of cached builds: $KPROF_CACHE_DIR, else $XDG_CACHE_HOME/kprof, else ~/.cache/kprof;
/// then "/builds". "" when none can be named.
std::string build_cache_dir();

/// Copies the cached .so of `key` to `output` (atomically). False when there is none.
bool build_cache_fetch(const std::string& key, const std::string& output);

/// Stores a copy of `so` under `key`, keeping the newest kMaxCachedBuilds entries. Never throws:
/// a cache that cannot be written only costs the next run a compile.
void build_cache_store(const std::string& key, const std::string& so);

/// At most this many .so files are kept in the cache (a CUTLASS GEMM's is about 3 MB).
inline constexpr size_t kMaxCachedBuilds = 64;

}  // namespace kprof
