// Stop handlers: a lock-free flag set from the signal handler, read by the training loop.
#include "powerzoo/core/stop_signal.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace pz::core {
namespace {

std::atomic<int> g_signal{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGUSR1};

void write_stderr(const char* s) {
  const ssize_t n = ::write(2, s, std::strlen(s));
  (void)n;
}

void on_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    // Second signal: what the user would have had without us, now.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  write_stderr("\npowerzoo: ");
  write_stderr(signal_name(sig));
  write_stderr(
      " received: finishing this iteration and writing a checkpoint (signal again to stop "
      "at once)\n");
}

}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "signal";
  }
}

void install_stop_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // writes and waits in progress continue; the loop checks the flag
  for (int s : kSignals) ::sigaction(s, &sa, nullptr);
}

int stop_signal() { return g_signal.load(); }

void reset_stop_signal() {
  g_signal.store(0);
  install_stop_handlers();
}

}  // namespace pz::core
