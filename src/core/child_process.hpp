// A long-lived child process spoken to by lines: its stdin and stdout are pipes, its stderr goes
// to a file. kprof's chart workers (python/chart_pool.hpp) are such children: a Python that
// imported matplotlib once and draws one chart per request line.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// One child process. Not copyable; the destructor closes its stdin (a line server then exits),
/// waits up to 0.2 s, then kills its process group.
class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Starts `argv` (argv[0] searched on PATH) in a process group of its own, stderr appended to
  /// `stderr_file` ("" = /dev/null). Returns false (and `error()` says why) when it cannot start.
  bool start(const std::vector<std::string>& argv, const std::string& stderr_file = "");

  /// Writes `line` and a newline to the child's stdin. False when the child is gone.
  bool write_line(const std::string& line);

  /// The next line the child writes to stdout (without the newline), waiting at most
  /// `timeout_s` seconds; nullopt on timeout, end of output or error.
  std::optional<std::string> read_line(double timeout_s);

  /// Stops the child now (SIGKILL to its process group) and reaps it.
  void kill();

  bool running() const { return pid_ > 0; }
  /// True once the child closed its stdout (it ended) and every line was read.
  bool at_eof() const { return out_fd_ < 0 && buffer_.find('\n') == std::string::npos; }
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;   ///< the child's stdin (write end)
  int out_fd_ = -1;  ///< the child's stdout (read end)
  std::string buffer_;
  std::string error_;
};

}  // namespace kprof
