#include "util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

extern char** environ;

namespace cudaenv {

namespace {

struct Pipes {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  ~Pipes() {
    for (int fd : {out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
};

// Reads both pipes until they close or the deadline passes; false on timeout.
bool drain(Pipes& pipes, ProcessOutput& output, std::chrono::steady_clock::time_point deadline) {
  pollfd fds[2] = {{pipes.out[0], POLLIN, 0}, {pipes.err[0], POLLIN, 0}};
  std::string* sinks[2] = {&output.out, &output.err};
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? false : true;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  return true;
}

}  // namespace

Result<ProcessOutput> run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                  const EnvMap* env) {
  Pipes pipes;
  if (::pipe2(pipes.out, O_CLOEXEC) != 0 || ::pipe2(pipes.err, O_CLOEXEC) != 0) {
    return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipes.out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipes.err[1], 2);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers = c_string_array(args);
  std::vector<std::string> env_strings = env ? env_to_strings(*env) : std::vector<std::string>{};
  std::vector<char*> env_pointers = c_string_array(env_strings);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, arg_pointers.data(),
                          env ? env_pointers.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error("cannot run " + args[0] + ": " + std::strerror(rc));
  ::close(pipes.out[1]);
  ::close(pipes.err[1]);
  pipes.out[1] = pipes.err[1] = -1;

  ProcessOutput output;
  bool finished = drain(pipes, output, std::chrono::steady_clock::now() + timeout);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    return make_error("`" + join(argv, " ") + "` did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return output;
}

}  // namespace cudaenv
