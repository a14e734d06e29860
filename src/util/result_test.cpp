#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "util/result.h"

using namespace cudaenv;

namespace {

// Runs `misuse` in a child (its stderr silenced) and returns how it ended.
template <class Misuse>
int child_status(Misuse misuse) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stderr);
    misuse();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("Result: the value of a failed result, or the error of a good one, aborts in every build") {
  int status = child_status([] {
    Result<int> failed = make_error("no such thing");
    std::printf("%d", failed.value());
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  status = child_status([] {
    Result<int> good = 1;
    std::printf("%s", good.error().message.c_str());
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  status = child_status([] {
    Result<int> good = 1;
    if (good.value() != 1) std::abort();
  });
  CHECK(WIFEXITED(status));
}

namespace {

Result<std::string> word(bool good) {
  if (!good) return make_error("no word", "give one", ErrorKind::usage);
  return std::string("cuda");
}

// Two assignments in one scope, a comma inside the expression, an error passed on unchanged.
Result<std::size_t> total_length(bool first, bool second) {
  CUDAENV_TRY_ASSIGN(auto a, word(first));
  CUDAENV_TRY_ASSIGN(std::string b, std::pair<bool, int>{second, 0}.first ? word(true) : word(false));
  return a.size() + b.size();
}

}  // namespace

TEST_CASE("CUDAENV_TRY_ASSIGN gives the value, or returns the error as it was") {
  auto both = total_length(true, true);
  REQUIRE(both);
  CHECK(*both == 8);
  auto failed = total_length(true, false);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "no word");
  CHECK(failed.error().hint == "give one");
  CHECK(failed.error().kind == ErrorKind::usage);
}

TEST_CASE("ErrorKind: each kind's exit status, as a shell would report it") {
  CHECK(make_error("x").kind == ErrorKind::failure);
  CHECK(exit_code(ErrorKind::failure) == 1);
  CHECK(exit_code(ErrorKind::usage) == 2);
  // A file the server does not have is a failure like any other to the shell; only the code that
  // asked for it (an optional page) tells it apart.
  CHECK(exit_code(ErrorKind::not_on_server) == 1);
  CHECK(exit_code(ErrorKind::program_not_runnable) == 126);
  CHECK(exit_code(ErrorKind::program_not_found) == 127);
  CHECK(exit_code(ErrorKind::interrupted) == 128 + SIGINT);
}
