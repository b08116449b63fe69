#include "core/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {

FileLock::FileLock(const std::string& path, void (*on_wait)(const std::string& path)) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw usage_error("cannot open the lock file " + path + ": " + std::strerror(errno),
                      "set TMPDIR to a writable folder");
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (on_wait) on_wait(path);
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string gpu_lock_path(const std::string& gpu_id) {
  std::string dir = temp_root();
  std::string id = gpu_id;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return dir + "/kprof-gpu-" + id + ".lock";
}

}  // namespace kprof
