#include "support/loopback_mirror.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace cudaenv::testing {

LoopbackMirror::LoopbackMirror(const std::filesystem::path& root, const std::filesystem::path& faults,
                               const std::filesystem::path& log) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    if (log.empty()) {
      ::execl(CUDAENV_TEST_MIRROR, CUDAENV_TEST_MIRROR, "--root", root.c_str(), "--faults", faults.c_str(), nullptr);
    } else {
      ::execl(CUDAENV_TEST_MIRROR, CUDAENV_TEST_MIRROR, "--root", root.c_str(), "--faults", faults.c_str(), "--log", log.c_str(),
              nullptr);
    }
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  // The server prints its port once it listens.
  std::string port;
  char c = 0;
  while (::read(pipe_fds[0], &c, 1) == 1 && c != '\n') port += c;
  ::close(pipe_fds[0]);
  if (pid_ > 0 && !port.empty()) url_ = "http://127.0.0.1:" + port + "/";
}

LoopbackMirror::~LoopbackMirror() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
}

}  // namespace cudaenv::testing
