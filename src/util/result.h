#pragma once
// Errors are values: fallible functions return Result<T>, and only the top of
// the program turns an Error into the single "cudaenv: error: ..." line.

#include <string>
#include <utility>
#include <variant>

namespace cudaenv {

struct Error {
  std::string message;  // what went wrong, naming the file/value involved
  std::string hint;     // how to fix it; may be empty
  int exit_code = 1;    // 1 failure, 2 usage, 127 program not found
};

inline Error make_error(std::string message, std::string hint = {}, int exit_code = 1) {
  return Error{std::move(message), std::move(hint), exit_code};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }
  Error&& take_error() { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace cudaenv

// Propagates an error from an expression returning Result<...>.
#define CUDAENV_TRY(expr)                                  \
  do {                                                     \
    auto cudaenv_try_result_ = (expr);                     \
    if (!cudaenv_try_result_) return cudaenv_try_result_.take_error(); \
  } while (0)
