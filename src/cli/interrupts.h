#pragma once
// Ctrl-C and SIGTERM during an install, at the CLI's edge: while an Interrupts lives, the two
// signals set a flag instead of killing the process, and `interrupted()` says whether one came.
// The install polls it (install_release's `interrupted`), removes its staging folder, keeps the
// partial downloads for a resume and fails with interrupted_error().

#include <signal.h>

namespace cudaenv {

class Interrupts {
 public:
  Interrupts();
  ~Interrupts();
  Interrupts(const Interrupts&) = delete;
  Interrupts& operator=(const Interrupts&) = delete;

  static bool interrupted();

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

}  // namespace cudaenv
