#include "core/child_process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>

namespace kprof {

ChildProcess::~ChildProcess() {
  if (pid_ <= 0) return;
  if (in_fd_ >= 0) ::close(in_fd_);  // EOF: a line server ends by itself
  in_fd_ = -1;
  for (int i = 0; i < 20; ++i) {  // up to 0.2 s
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    ::usleep(10000);
  }
  kill();
}

bool ChildProcess::start(const std::vector<std::string>& argv, const std::string& stderr_file) {
  if (argv.empty()) {
    error_ = "no program to start";
    return false;
  }
  int in_pipe[2], out_pipe[2], exec_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(exec_pipe, O_CLOEXEC)) {
    error_ = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const char* err_path = stderr_file.empty() ? "/dev/null" : stderr_file.c_str();
  pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    int err = ::open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (err >= 0) ::dup2(err, 2);
    ::unsetenv("KPROF_OUTCOME_FILE");  // never this process's outcome document (core/outcome.hpp)
    ::execvp(args[0], args.data());
    int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid < 0) {
    error_ = std::string("fork: ") + std::strerror(errno);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(exec_pipe[0]);
    return false;
  }
  int e = 0;
  ssize_t n = ::read(exec_pipe[0], &e, sizeof e);  // 0 bytes: exec succeeded (the pipe closed on exec)
  ::close(exec_pipe[0]);
  pid_ = pid;
  in_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
  if (n == static_cast<ssize_t>(sizeof e)) {
    error_ = "cannot run " + argv[0] + ": " + std::strerror(e);
    kill();
    return false;
  }
  return true;
}

bool ChildProcess::write_line(const std::string& line) {
  if (in_fd_ < 0) return false;
  // A child that died leaves a pipe without reader: the write fails with EPIPE and raises SIGPIPE
  // on this thread, which is blocked here and consumed, so kprof does not die of it.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  std::string data = line + "\n";
  size_t done = 0;
  bool ok = true;
  while (done < data.size()) {
    ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = std::string("write: ") + std::strerror(errno);
      ok = false;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (!ok) {
    timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);  // the pending SIGPIPE, if any
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  return ok;
}

std::optional<std::string> ChildProcess::read_line(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (out_fd_ < 0) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char chunk[4096];
    ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the child closed its stdout (it ended)
      ::close(out_fd_);
      out_fd_ = -1;
      continue;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

void ChildProcess::kill() {
  if (in_fd_ >= 0) ::close(in_fd_);
  if (out_fd_ >= 0) ::close(out_fd_);
  in_fd_ = out_fd_ = -1;
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

}  // namespace kprof
