// Running sbatch or kubectl: stdout captured, the exit code as a shell reports it, a missing program said so.
#include <doctest/doctest.h>

#include "dgx/core/app/external_program.hpp"

using namespace dgx;

TEST_CASE("a program's stdout is captured and its exit code returned") {
  auto ran = run_program({"/bin/sh", "-c", "echo 'mpijob.kubeflow.org/x created'; exit 3"});
  REQUIRE(ran);
  CHECK(ran->out == "mpijob.kubeflow.org/x created\n");
  CHECK(ran->exit_code == 3);
}

TEST_CASE("a program is looked up on PATH, and one that cannot be started is a failure naming it") {
  CHECK(run_program({"sh", "-c", "exit 0"})->exit_code == 0);
  auto missing = run_program({"dgx-no-such-program-anywhere"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("cannot run dgx-no-such-program-anywhere") != std::string::npos);
}

TEST_CASE("a program killed by a signal reports 128 + its number, and endless output is cut off") {
  CHECK(run_program({"/bin/sh", "-c", "kill -TERM $$"})->exit_code == 143);
  auto endless = run_program({"/bin/sh", "-c", "yes"}, 1 << 20);
  REQUIRE_FALSE(endless);
  CHECK(endless.error().message.find("wrote more than 1048576 bytes") != std::string::npos);
}
