// spawn_timer RUNS CMD [ARGS...]: runs CMD RUNS times (stdout/stderr to /dev/null) and
// prints the median and minimum wall time and the median CPU time (user + system, of the
// process and what it execs into) in microseconds. posix_spawn + wait4, so the harness adds
// the same small cost to every command it compares. CPU time leaves out the waits for a core
// that make wall time swing on a loaded machine.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: spawn_timer RUNS CMD [ARGS...]\n");
    return 2;
  }
  int runs = std::atoi(argv[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<double> micros, cpu_micros;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawnp(&pid, argv[2], &actions, nullptr, argv + 2, environ) != 0) {
      std::fprintf(stderr, "spawn_timer: cannot run %s\n", argv[2]);
      return 1;
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    auto seconds = [](const timeval& t) { return 1e6 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec); };
    cpu_micros.push_back(seconds(usage.ru_utime) + seconds(usage.ru_stime));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "spawn_timer: %s failed\n", argv[2]);
      return 1;
    }
  }
  std::sort(micros.begin(), micros.end());
  std::sort(cpu_micros.begin(), cpu_micros.end());
  std::printf("%.1f %.1f %.1f\n", micros[micros.size() / 2], micros.front(), cpu_micros[cpu_micros.size() / 2]);
  return 0;
}
