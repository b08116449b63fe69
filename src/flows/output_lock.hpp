// One run, one output folder (issue 50): runs that write into one folder take turns.
#pragma once

#include <memory>
#include <string>

namespace kprof {

class FileLock;

/// Holds the output folder `dir` for one run, from construction to destruction: flock(2) on
/// DIR/.kprof.lock (core/file_lock.hpp; deleted when the run lets go, so none is left behind). A second run into the same folder waits for the first
/// (saying so once on stderr), then runs whole: the two never mix their reports, and neither is
/// refused for the folder being busy. The lock is the run's, not the process's: the processes the
/// run starts (`--gpus` workers, Slurm jobs, child commands) inherit KPROF_OUTPUT_LOCK ("PID:DIR")
/// and share it instead of waiting for it. Threads of one process take turns too (flock is per
/// open file). Does nothing when `dir` is "" or cannot hold reports (the command refuses it with
/// its own message). Throws Error (exit 2) when the folder cannot be created.
class OutputFolderLock {
 public:
  explicit OutputFolderLock(const std::string& dir);
  ~OutputFolderLock();
  OutputFolderLock(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(const OutputFolderLock&) = delete;
  /// True when this object holds the folder's lock (false: shared with the run that started us, or none).
  bool held() const { return lock_ != nullptr; }
  /// Lets the folder go now (the run's reports are written): DIR/.kprof.lock is deleted, as by the
  /// destructor, which a command leaving through _Exit never runs (cli/entry.cpp finish()).
  void release();

 private:
  std::unique_ptr<FileLock> lock_;
};

/// The name of the lock file inside an output folder.
inline constexpr const char* kOutputLockName = ".kprof.lock";

}  // namespace kprof
