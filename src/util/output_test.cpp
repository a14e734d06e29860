#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "util/output.h"

using namespace cudaenv;

namespace {

// Sets (or, with nullopt, unsets) NO_COLOR for one scope and puts the old value back.
class ScopedNoColor {
 public:
  explicit ScopedNoColor(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("NO_COLOR")) old_ = old;
    if (value) ::setenv("NO_COLOR", value->c_str(), 1);
    else ::unsetenv("NO_COLOR");
  }
  ~ScopedNoColor() {
    if (old_) ::setenv("NO_COLOR", old_->c_str(), 1);
    else ::unsetenv("NO_COLOR");
  }
  ScopedNoColor(const ScopedNoColor&) = delete;
  ScopedNoColor& operator=(const ScopedNoColor&) = delete;

 private:
  std::optional<std::string> old_;
};

// The terminal side of a new pseudo-terminal, as a stream; null where the system has none.
std::FILE* open_terminal(int& master) {
  master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return nullptr;
  const char* name = ::ptsname(master);
  return name ? std::fopen(name, "w") : nullptr;
}

// Runs `check` on the write end of a pseudo-terminal, where this machine can open one.
void on_terminal(const std::function<void(std::FILE*)>& check) {
  int master = -1;
  std::FILE* terminal = open_terminal(master);
  if (!terminal) {
    WARN("no pseudo-terminal here: only the pipe half of the policy is checked");
  } else {
    check(terminal);
    std::fclose(terminal);
  }
  if (master >= 0) ::close(master);
}

// Runs `check` on the write end of a pipe.
void on_pipe(const std::function<void(std::FILE*)>& check) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::FILE* pipe_end = ::fdopen(fds[1], "w");
  REQUIRE(pipe_end);
  check(pipe_end);
  std::fclose(pipe_end);
  ::close(fds[0]);
}

}  // namespace

TEST_CASE("wants_colour: a terminal gets colour unless NO_COLOR is set to a non-empty value") {
  on_terminal([](std::FILE* terminal) {
    {
      ScopedNoColor unset(std::nullopt);
      CHECK(wants_colour(terminal));
    }
    {
      ScopedNoColor empty(std::string{});
      CHECK(wants_colour(terminal));
    }
    ScopedNoColor set(std::string{"1"});
    CHECK_FALSE(wants_colour(terminal));
  });
  on_pipe([](std::FILE* pipe_end) {
    ScopedNoColor unset(std::nullopt);
    CHECK_FALSE(wants_colour(pipe_end));
  });
}

TEST_CASE("wants_progress_bars: on a terminal, NO_COLOR or not, unless turned off, never into a pipe") {
  on_terminal([](std::FILE* terminal) {
    {
      ScopedNoColor set(std::string{"1"});
      CHECK(wants_progress_bars(terminal, false));
      CHECK_FALSE(wants_colour(terminal));
    }
    CHECK_FALSE(wants_progress_bars(terminal, true));
  });
  on_pipe([](std::FILE* pipe_end) { CHECK_FALSE(wants_progress_bars(pipe_end, false)); });
}
