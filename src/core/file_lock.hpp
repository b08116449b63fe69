// An exclusive lock between processes on one host: flock(2) on a lock file. Used so that two kprof
// workers never time or profile on one GPU at once (ncu fails with "a driver resource was
// unavailable" when a second session starts on a GPU whose counters are held).
#pragma once

#include <string>

namespace kprof {

/// Holds flock(LOCK_EX) on `path` (created when missing) from construction to destruction; the
/// kernel releases it when the process dies, so a crashed holder never blocks the next one.
/// With `remove`, the holder deletes the file when it lets go (while still holding it), and every
/// holder checks after locking that `path` is still the file it locked (else it locks the new one):
/// no file is left behind, and a waiter never holds a deleted file beside a newer holder.
class FileLock {
 public:
  /// Blocks until the lock is held. `on_wait` (may be null) is called once before blocking when
  /// another process holds it. Throws Error (exit 2) when the file cannot be opened.
  explicit FileLock(const std::string& path, void (*on_wait)(const std::string& path) = nullptr, bool remove = false);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
  std::string path_;  ///< the file deleted on release ("" to keep it)
};

/// The lock file of one GPU: $TMPDIR (else /tmp) + "/kprof-gpu-" + `gpu_id` + ".lock", with
/// characters outside [A-Za-z0-9._-] in `gpu_id` replaced by '_'.
std::string gpu_lock_path(const std::string& gpu_id);

}  // namespace kprof
