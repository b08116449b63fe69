#include "core/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {

namespace {

/// True when `fd` is the file at `path` now (not one deleted since it was opened).
bool still_at(int fd, const std::string& path) {
  struct stat held {
  }, named{};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

FileLock::FileLock(const std::string& path, void (*on_wait)(const std::string& path), bool remove)
    : path_(remove ? path : std::string()) {
  for (bool said = false;;) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0)
      throw usage_error("cannot open the lock file " + path + ": " + std::strerror(errno),
                        "set TMPDIR to a writable folder");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (on_wait && !said) on_wait(path);
      said = true;
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
    if (!remove || still_at(fd_, path)) return;
    ::close(fd_);  // the holder before us deleted it: lock the file there now
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  if (!path_.empty()) ::unlink(path_.c_str());  // while held: a waiter on it sees it gone and retries
  ::close(fd_);                                 // closing releases the flock
}

std::string gpu_lock_path(const std::string& gpu_id) {
  std::string dir = temp_root();
  std::string id = gpu_id;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return dir + "/kprof-gpu-" + id + ".lock";
}

}  // namespace kprof
