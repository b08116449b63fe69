// kprof's error type and exit codes.
//
// Exit codes (documented in README.md, "Exit codes"), the contract scripts rely on:
//   0  success: ready / all outputs pass / profile written
//   1  the thing checked failed: environment not ready, wrong output, kernel fault,
//      ncu could not collect the required metrics
//   2  usage or input error: bad option, missing file, bad signature, broken ref.py
#pragma once

#include <stdexcept>
#include <string>

namespace kprof {

/// Process exit codes (see file comment).
enum class ExitCode : int { Ok = 0, Failed = 1, Usage = 2 };

/// An error kprof reports to the user as one clear message.
/// `what()` says what went wrong; `hint()` (may be empty) says what to do about it;
/// `code()` is the exit code the CLI returns for it.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message, std::string hint = {})
      : std::runtime_error(message), code_(code), hint_(std::move(hint)) {}
  ExitCode code() const { return code_; }
  const std::string& hint() const { return hint_; }

 private:
  ExitCode code_;
  std::string hint_;
};

/// Usage or input error (exit 2): bad option, unreadable file, bad signature, broken ref.py.
inline Error usage_error(const std::string& message, std::string hint = {}) {
  return Error(ExitCode::Usage, message, std::move(hint));
}

/// The checked thing failed (exit 1): not ready, kernel fault, ncu failure.
inline Error check_failed(const std::string& message, std::string hint = {}) {
  return Error(ExitCode::Failed, message, std::move(hint));
}

/// The one refusal for a file that is damaged or truncated (exit 2, issue 50): "PATH is damaged
/// or truncated: WHAT_READ" (what was read before the damage, e.g. "read 3 of its launches; then
/// ..."). `hint` says how to get a whole file; never the reader's own exception text.
inline Error damaged_input(const std::string& path, const std::string& what_read, std::string hint = {}) {
  return usage_error(path + " is damaged or truncated: " + what_read,
                     hint.empty() ? "write the file again (an interrupted run or a partial copy leaves it cut short)"
                                  : std::move(hint));
}

}  // namespace kprof
