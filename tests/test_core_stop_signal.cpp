// core/stop_signal: the first stop signal is recorded (the process goes on), which one it was.
#include <doctest/doctest.h>
#include <signal.h>

#include <string>

#include "powerzoo/core/stop_signal.hpp"

using namespace pz;

TEST_SUITE("core_stop_signal") {
  TEST_CASE("the first SIGUSR1 or SIGTERM is recorded, not acted on") {
    core::reset_stop_signal();
    CHECK(core::stop_signal() == 0);
    ::raise(SIGUSR1);  // without the handler this would end the test binary
    CHECK(core::stop_signal() == SIGUSR1);
    CHECK(std::string(core::signal_name(core::stop_signal())) == "SIGUSR1");
    core::reset_stop_signal();
    ::raise(SIGTERM);
    CHECK(core::stop_signal() == SIGTERM);
    core::reset_stop_signal();
    CHECK(core::stop_signal() == 0);
    // Back to the default actions, so that the rest of the suite runs as without the handlers.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGUSR1, SIG_DFL);
  }
}
