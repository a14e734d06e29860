#include "cli/interrupts.h"

#include <atomic>

namespace cudaenv {

namespace {
// A signal handler can reach only a global; this is the one, and it lives at the CLI's edge.
std::atomic<bool> g_interrupted{false};

void on_interrupt(int) { g_interrupted = true; }
}  // namespace

Interrupts::Interrupts() {
  g_interrupted = false;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

Interrupts::~Interrupts() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

bool Interrupts::interrupted() { return g_interrupted.load(); }

}  // namespace cudaenv
