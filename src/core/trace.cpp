#include "core/trace.hpp"
#include "core/settings.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kprof {

namespace {
/// The trace file's descriptor: -1 when tracing is off (opened once, kept for the process's life).
int trace_fd() {
  static const int fd = [] {
    const std::string& path = settings().trace_path;
    if (path.empty()) return -1;
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }();
  return fd;
}
}  // namespace

bool trace_enabled() { return trace_fd() >= 0; }

void trace_event(std::string_view event) {
  const int fd = trace_fd();
  if (fd < 0) return;
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  char head[64];
  int n = std::snprintf(head, sizeof head, "%lld.%06ld %d ", static_cast<long long>(ts.tv_sec), ts.tv_nsec / 1000,
                        static_cast<int>(::getpid()));
  std::string line(head, static_cast<size_t>(n));
  for (char c : event) line += c == '\n' ? ' ' : c;
  line += '\n';
  ssize_t w = ::write(fd, line.data(), line.size());
  (void)w;  // a trace that cannot be written is not worth a failure
}

}  // namespace kprof
