// Graceful stop: SIGINT, SIGTERM and SIGUSR1 ask a run to finish its iteration and checkpoint;
// a second signal stops the process at once.
#pragma once

namespace pz::core {

/// Exit code of a run (or sweep) that stopped on a signal after writing its checkpoint: the same
/// command with --resume (a sweep: the same command) continues it.
inline constexpr int kExitInterrupted = 3;

/// Installs the handlers (idempotent). The first SIGINT, SIGTERM or SIGUSR1 only records the
/// signal and prints one line on stderr; the next one of them gets the default action (the
/// process ends at once, as without the handlers). Async-signal-safe.
void install_stop_handlers();

/// The signal that asked the run to stop (SIGINT, SIGTERM, SIGUSR1), or 0 if none has.
int stop_signal();

/// "SIGTERM" etc. for the signals above, "signal N" otherwise.
const char* signal_name(int sig);

/// Tests: forget a recorded signal and re-arm the handlers.
void reset_stop_signal();

}  // namespace pz::core
