#include "interruption.h"

#include <csignal>

namespace ictus::cli {

namespace {

std::atomic<bool> g_interrupted{false};
volatile std::sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "stored to from a signal handler");

extern "C" void on_interrupt(int signal) {
  g_signal = signal;
  g_interrupted.store(true);
}

}  // namespace

void install_interruption_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal takes the default action
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

const std::atomic<bool>& interruption_flag() {
  return g_interrupted;
}

int interruption_signal() {
  return static_cast<int>(g_signal);
}

}  // namespace ictus::cli
