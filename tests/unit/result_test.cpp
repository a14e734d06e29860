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
