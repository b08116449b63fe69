#include "core/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/settings.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

const char* kLimitHint = "a larger file is read with KPROF_MAX_INPUT_BYTES=BYTES";

Error too_large(const std::string& path, double limit) {
  return usage_error(fmt::format("{} is larger than {}, the limit on a report kprof reads", path, fmt_bytes(limit)),
                     kLimitHint);
}

/// Opens the FIFO `path` for reading without blocking on a missing writer: O_NONBLOCK, then waits
/// (copy_stream waits for the writer). Returns the descriptor.
int open_stream(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)),
                      "check that the file exists and is readable");
  return fd;
}

/// Copies the stream on `fd` into `out`: each wait for more bytes is at most `wait_s`; in all at
/// most `limit` bytes. A FIFO with no writer yet reads as end-of-file at once with O_NONBLOCK, so
/// an end before any byte waits for a writer too.
void copy_stream(int fd, const std::string& path, std::ofstream& out, double wait_s, double limit) {
  std::vector<char> buf(1 << 20);
  double total = 0;
  bool any = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (true) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      any = true;
      total += static_cast<double>(n);
      if (total > limit) throw too_large(path, limit);
      out.write(buf.data(), n);
      deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0 && any) return;  // the writer closed: the whole stream is read
    auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0)
      throw usage_error(
          fmt::format("{} is a FIFO or pipe, and {} for {:g} s", path,
                      any ? "its writer stopped sending without closing it" : "nothing was written to it", wait_s),
          "start the program that writes it first, or pass a file; a slower writer is waited for "
          "with KPROF_INPUT_WAIT_S=SECONDS");
    if (n == 0) {  // no writer yet (or between writers): poll does not wait for one, so sleep a little
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(50, static_cast<long>(left * 1000) + 1)));
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min(left * 1000.0, 1000.0)) + 1);
  }
}

}  // namespace

ReportInput prepare_report_input(const std::string& path, const std::string& suffix) {
  ReportInput in{path, nullptr};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return in;
  const Settings& s = settings();
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw usage_error(path + " is a device, not a report file: its input never ends",
                      "pass an Nsight Compute report (.ncu-rep) or a CSV exported with ncu --csv --page raw");
  if (S_ISREG(st.st_mode)) {
    if (static_cast<double>(st.st_size) > s.max_input_bytes) throw too_large(path, s.max_input_bytes);
    return in;
  }
  // A FIFO, pipe or socket: copied with a deadline, so a writer that never comes cannot hang kprof.
  in.scratch = std::make_shared<ScratchFile>("kprof-input", suffix, "");
  if (in.scratch->path().empty())
    throw usage_error("cannot create a scratch file to read " + path + " into", "set TMPDIR to a writable folder");
  int fd = open_stream(path);
  try {
    std::ofstream out(in.scratch->path(), std::ios::binary | std::ios::trunc);
    copy_stream(fd, path, out, s.input_wait_s, s.max_input_bytes);
    out.flush();
    if (!out)
      throw usage_error("cannot write the scratch copy of " + path + " (" + in.scratch->path() + ")",
                        "free space under TMPDIR");
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  in.path = in.scratch->path();
  return in;
}

}  // namespace kprof
