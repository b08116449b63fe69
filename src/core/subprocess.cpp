#include "core/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

void emit_lines(std::string& pending, const char* data, size_t n, bool is_err,
                const std::function<void(const std::string&, bool)>& cb) {
  if (!cb) return;
  pending.append(data, n);
  size_t start = 0, nl;
  while ((nl = pending.find_first_of("\n\r", start)) != std::string::npos) {
    if (nl > start) cb(pending.substr(start, nl - start), is_err);
    start = nl + 1;
  }
  pending.erase(0, start);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
  ProcessResult r;
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  // All three close on exec: with several threads starting processes at once (parallel nvcc
  // builds), a child must not inherit another run's pipe ends, which would hold that run's EOF
  // until this child exits. dup2() onto 1 and 2 below clears the flag on the copies.
  if (::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC) || ::pipe2(exec_pipe, O_CLOEXEC)) {
    r.not_found = true;
    r.err = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  auto t0 = Clock::now();
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    // The child ends with kprof (issue 50): SIGTERM once the thread that started it, which waits
    // for it here, is gone (kprof stopped past --wall-timeout-s, or killed by its caller).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // kprof ended before prctl took effect
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    ::close(exec_pipe[0]);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::close(devnull);
    }
    if (!opts.stdout_file.empty()) {  // stdout to a file: the parent's pipe sees EOF at once
      int fd = ::open(opts.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) {
        int e = errno;
        (void)!::write(exec_pipe[1], &e, sizeof e);
        ::_exit(127);
      }
      ::dup2(fd, 1);
      ::close(fd);
    }
    // An outcome document goes where the parent names one for this child (opts.env), never to
    // the file this process was told to write (core/outcome.hpp).
    ::unsetenv("KPROF_OUTCOME_FILE");
    for (const auto& [k, v] : opts.env) ::setenv(k.c_str(), v.c_str(), 1);
    if (!opts.cwd.empty() && ::chdir(opts.cwd.c_str()) != 0) {
      int e = errno;
      (void)!::write(exec_pipe[1], &e, sizeof e);
      ::_exit(127);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid < 0) {
    r.not_found = true;
    r.err = std::string("fork: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(exec_pipe[0]);
    return r;
  }
  int exec_errno = 0;
  if (::read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    r.not_found = true;
    r.err = argv[0] + ": " + std::strerror(exec_errno);
  }
  ::close(exec_pipe[0]);

  std::string pend_out, pend_err;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  Clock::time_point kill_at{};
  char buf[65536];
  while (open_fds > 0) {
    int wait_ms = 200;
    int rc = ::poll(fds, 2, wait_ms);
    if (rc < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      if (opts.on_chunk) opts.on_chunk(std::string(buf, static_cast<size_t>(n)), i == 1);
      emit_lines(i == 0 ? pend_out : pend_err, buf, static_cast<size_t>(n), i == 1, opts.on_line);
    }
    double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (opts.on_tick) opts.on_tick(elapsed);
    const bool cancelled = opts.cancel && opts.cancel->load();
    if (((opts.timeout_s > 0 && elapsed > opts.timeout_s) || cancelled) && !killed) {
      (cancelled ? r.cancelled : r.timed_out) = true;
      killed = true;
      ::kill(-pid, SIGTERM);
      kill_at = Clock::now() + std::chrono::seconds(2);
    }
    if (killed && Clock::now() > kill_at) {
      ::kill(-pid, SIGKILL);
      // Grandchildren may keep the pipes open; stop reading once the group is killed.
      for (auto& f : fds)
        if (f.fd >= 0) {
          ::close(f.fd);
          f.fd = -1;
        }
      open_fds = 0;
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  if (opts.on_line) {
    if (!pend_out.empty()) opts.on_line(pend_out, false);
    if (!pend_err.empty()) opts.on_line(pend_err, true);
  }
  int status = 0;
  while (true) {
    pid_t w = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      if (opts.timeout_s > 0 && elapsed > opts.timeout_s) {
        r.timed_out = true;
        killed = true;
        ::kill(-pid, SIGKILL);
      }
      ::usleep(10000);
    }
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=/.,:@%") == std::string::npos)
    return arg;
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shell_quote(a);
  }
  return s;
}

}  // namespace kprof
