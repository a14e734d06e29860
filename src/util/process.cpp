#include "util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "util/strings.h"

extern char** environ;

namespace cudaenv {

namespace {

// No helper cudaenv asks (nvcc --version, a Python probe) says more than this: one that
// does is broken or hostile, and is stopped rather than read into memory.
constexpr size_t kMaxOutputBytes = size_t{1} << 20;

struct Pipes {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  ~Pipes() {
    for (int fd : {out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
};

enum class Drained { closed, timed_out, too_long };

// A descriptor that becomes readable when `pid` exits (Linux 5.3+); -1 where there is none.
int exit_watch(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

// Reads both pipes until they close, the deadline passes or one holds more than the cap.
// Once the program itself has exited, what is already in the pipes is read and the rest is
// not waited for: a grandchild holding them open must not keep its parent's caller waiting.
Drained drain(Pipes& pipes, ProcessOutput& output, pid_t pid, std::chrono::steady_clock::time_point deadline) {
  int watch = exit_watch(pid);
  pollfd fds[3] = {{pipes.out[0], POLLIN, 0}, {pipes.err[0], POLLIN, 0}, {watch, POLLIN, 0}};
  std::string* sinks[2] = {&output.out, &output.err};
  int open_count = 2;
  bool exited = false;
  Drained result = Drained::closed;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!exited && left.count() <= 0) {
      result = Drained::timed_out;
      break;
    }
    int ready = ::poll(fds, 3, exited ? 0 : static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      if (ready == 0 && !exited) result = Drained::timed_out;
      break;
    }
    if (fds[2].fd >= 0 && (fds[2].revents & POLLIN)) {
      exited = true;
      fds[2].fd = -1;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
        if (sinks[i]->size() > kMaxOutputBytes) {
          open_count = 0;
          result = Drained::too_long;
          break;
        }
      } else {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  if (watch >= 0) ::close(watch);
  return result;
}

}  // namespace

Result<ProcessOutput> run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, const EnvMap* env) {
  Pipes pipes;
  if (::pipe2(pipes.out, O_CLOEXEC) != 0 || ::pipe2(pipes.err, O_CLOEXEC) != 0) {
    return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipes.out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipes.err[1], 2);
  // Its own process group, so that whatever it starts can be killed with it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers = c_string_array(args);
  std::vector<std::string> env_strings = env ? env_to_strings(*env) : std::vector<std::string>{};
  std::vector<char*> env_pointers = c_string_array(env_strings);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0].c_str(), &actions, &attributes, arg_pointers.data(), env ? env_pointers.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return make_error("cannot run " + args[0] + ": " + std::strerror(rc));
  ::close(pipes.out[1]);
  ::close(pipes.err[1]);
  pipes.out[1] = pipes.err[1] = -1;

  ProcessOutput output;
  Drained drained = drain(pipes, output, pid, std::chrono::steady_clock::now() + timeout);
  if (drained != Drained::closed) ::kill(-pid, SIGKILL);
  // Wait for it without reaping it, so its pid, and so its group id, stays reserved; then
  // anything it left running in its group (a daemonised grandchild) goes too.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (drained == Drained::timed_out) {
    return make_error("`" + join(argv, " ") + "` did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  if (drained == Drained::too_long) {
    return make_error("`" + join(argv, " ") + "` printed more than " + std::to_string(kMaxOutputBytes >> 20) +
                      " MiB; it was stopped");
  }
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return output;
}

Error exec_failure(const std::string& program, int error_number) {
  return make_error("cannot run " + program + ": " + std::strerror(error_number), "",
                    error_number == ENOENT ? ErrorKind::program_not_found : ErrorKind::program_not_runnable);
}

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

std::optional<std::uint64_t> memory_available(const FileSystemView& fs, const std::filesystem::path& machine_root) {
  auto text = fs.read_file(machine_root / "proc/meminfo");
  if (!text) return std::nullopt;
  for (const std::string& line : split(*text, '\n')) {
    if (!starts_with(line, "MemAvailable:")) continue;
    std::vector<std::string> words;
    for (const std::string& word : split(line.substr(13), ' ')) {
      if (!word.empty()) words.push_back(word);
    }
    auto kib = words.size() == 2 && words[1] == "kB" ? parse_decimal(words[0], std::uint64_t{1} << 50) : std::nullopt;
    if (kib) return *kib * 1024;
  }
  return std::nullopt;
}

}  // namespace cudaenv
