#pragma once
// Errors are values: fallible functions return Result<T>, and only the top of
// the program turns an Error into the single "cudaenv: error: ..." line.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace cudaenv {

// What kind of failure an error is: what code may branch on (never the message's text), and what
// the exit status is.
enum class ErrorKind {
  failure,               // exit 1: anything else that went wrong
  usage,                 // exit 2: the command line, or a value given, is not one cudaenv takes
  not_on_server,         // exit 1: the server answered that the file is not there (HTTP 404 or 410)
  program_not_runnable,  // exit 126: the program to run was found but cannot be run (as a shell says)
  program_not_found,     // exit 127: the program to run was not found (as a shell says)
  interrupted,           // exit 130: stopped by Ctrl-C (as a shell reports SIGINT)
};

struct Error {
  std::string message;  // what went wrong, naming the file/value involved
  std::string hint;     // how to fix it; may be empty
  ErrorKind kind = ErrorKind::failure;
};

// The one place an error's kind becomes the process's exit status.
constexpr int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return 2;
    case ErrorKind::program_not_runnable: return 126;
    case ErrorKind::program_not_found: return 127;
    case ErrorKind::interrupted: return 130;
    case ErrorKind::failure:
    case ErrorKind::not_on_server: break;
  }
  return 1;
}

inline Error make_error(std::string message, std::string hint = {}, ErrorKind kind = ErrorKind::failure) {
  return Error{std::move(message), std::move(hint), kind};
}

// Taking the value of a failed Result (or the error of a good one) is a bug in cudaenv, never
// a user's mistake: it aborts in every build, so any test that reaches it fails loudly
// instead of passing through the "internal error" handler.
[[noreturn]] inline void result_misused(const std::string& what) {
  std::fprintf(stderr, "cudaenv: bug: %s (please report it)\n", what.c_str());
  std::abort();
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return checked(), std::get<0>(state_); }
  const T& value() const& { return checked(), std::get<0>(state_); }
  T&& value() && { return checked(), std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return failed(), std::get<1>(state_); }
  Error&& take_error() { return failed(), std::get<1>(std::move(state_)); }

 private:
  void checked() const {
    if (!ok()) result_misused("the value of a failed result was used: " + std::get<1>(state_).message);
  }
  void failed() const {
    if (ok()) result_misused("the error of a successful result was used");
  }

  std::variant<T, Error> state_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace cudaenv

// Propagates an error from an expression returning Result<...>.
#define CUDAENV_TRY(expr)                                              \
  do {                                                                 \
    auto cudaenv_try_result_ = (expr);                                 \
    if (!cudaenv_try_result_) return cudaenv_try_result_.take_error(); \
  } while (0)

// Declares or assigns from an expression returning Result<T>, or propagates its error:
//   CUDAENV_TRY_ASSIGN(auto manifest, read_manifest(path));  // manifest is the T itself
// (ccache's TRY_ASSIGN). The temporary's name carries the line, so several fit one scope.
#define CUDAENV_TRY_ASSIGN(target, ...) \
  CUDAENV_TRY_ASSIGN_AT_(CUDAENV_TRY_CONCAT_(cudaenv_try_assign_, __LINE__), target, __VA_ARGS__)
#define CUDAENV_TRY_ASSIGN_AT_(temporary, target, ...) \
  auto temporary = (__VA_ARGS__);                      \
  if (!temporary) return temporary.take_error();       \
  target = std::move(temporary).value()
#define CUDAENV_TRY_CONCAT_(a, b) CUDAENV_TRY_CONCAT2_(a, b)
#define CUDAENV_TRY_CONCAT2_(a, b) a##b
