// File helpers: whole-file reads and all-or-nothing writes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kprof {

/// Reads a whole file. Throws Error (exit 2) naming the path when it cannot be read.
std::string read_file(const std::string& path);

/// ".tmp<pid>-<n>", a different suffix on every call in this process (threads included): the
/// name of a temporary file beside its final path that no other writer uses.
std::string unique_temp_suffix();

/// $TMPDIR when set and not empty, else /tmp. Read on each call, not once (core/settings.hpp): a
/// scaled run gives each GPU's worker a TMPDIR of its own, and ncu keeps its lock there.
std::string temp_root();

/// A scratch file of this process: created under $TMPDIR (else /tmp) as PREFIX-XXXXXX SUFFIX with
/// `content`, removed when the object dies. path() is "" when it could not be created or written.
/// The one way stages/ put bytes in a file (they write no outputs; scripts/check_layers.py).
class ScratchFile {
 public:
  ScratchFile(const std::string& prefix, const std::string& suffix, std::string_view content);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Writes `content` to `path` atomically: a temporary file in the same folder, then rename(2),
/// so a report is either whole or absent, never half-written. Creates missing parent folders.
/// A text report (.md, .html, .svg, .json, .txt) is written with escape_foreign_bytes (core/text.hpp):
/// always valid UTF-8.
/// Throws Error (exit 2) naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

/// Creates `dir` and its parents if missing. Throws Error (exit 2) on failure.
void make_dirs(const std::string& dir);

/// Why `dir` cannot hold reports, or "" when it can: it is an existing file (not a folder), or
/// the nearest existing folder above it is a file or not writable (so it cannot be created).
/// Checked before any GPU work, so a wrong -o is an input error at once.
std::string output_dir_problem(const std::string& dir);

/// True when `path` names an existing file or folder.
bool path_exists(const std::string& path);

/// Modification time of `path` in seconds since the epoch (fractional), or -1 when missing.
double file_mtime(const std::string& path);

/// "<size> <mtime>" of `path` (mtime in seconds with microseconds), "" when it cannot be read:
/// a cheap "has it changed" stamp for caches.
std::string file_stamp(const std::string& path);

/// `dir` + "/" + `name`, without doubling the slash.
std::string join_path(const std::string& dir, const std::string& name);

/// The file name without folder and without its last extension ("a/v0.cu" -> "v0").
std::string file_stem(const std::string& path);

/// The folder part of a path ("a/b.cu" -> "a", "b.cu" -> ".").
std::string parent_dir(const std::string& path);

/// Absolute form of `path` (not resolving links); `path` itself when it is already absolute.
std::string absolute_path(const std::string& path);

/// kprof's cache folder: $KPROF_CACHE_DIR, else $XDG_CACHE_HOME/kprof, else $HOME/.cache/kprof;
/// "" when none of them is set. Not created here. Its subfolders: builds/, preprocessed/,
/// ceilings.json, ncu-sections-<hash>/.
std::string kprof_cache_dir();

/// Searches PATH for an executable; returns its full path or "" when absent.
std::string find_on_path(const std::string& program);

/// The paths matching the shell pattern `pattern` (glob(3)), sorted; empty when none match.
std::vector<std::string> glob_sorted(const std::string& pattern);

}  // namespace kprof
