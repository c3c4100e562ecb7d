// plausibility.cpp: values no tool measures are refused, naming the value (and the line where the parser records
// it), instead of becoming a row that a verdict would judge.
#include <doctest/doctest.h>

#include <string>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::string nemo_steps(const std::string& third_step) {
  std::string text;
  for (int i = 0; i < 8; ++i) {
    text += "Training epoch 0, iteration " + std::to_string(i) +
            "/49 | global_batch_size: 128 | train_step_timing in s: " + (i == 3 ? third_step : std::string("12.60")) +
            " | consumed_samples: 128\n";
  }
  return text;
}

std::string nccl_table(const std::string& busbw) {
  return "# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22105\n"
         "# Collective test starting: all_reduce_perf\n"
         "#  Rank  0 Group  0 Pid  41230 on  dgx-h100-01 device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
         "#  Rank  1 Group  0 Pid  41231 on  dgx-h100-01 device  1 [0x43] NVIDIA H100 80GB HBM3\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw "
         "#wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)\n"
         "   134217728      33554432     float     sum      -1    628.6  213.52  " +
         busbw +
         "      0    622.3  215.67  377.43      0\n"
         "# Out of bounds values : 0 OK\n"
         "# Avg bus bandwidth    : 98.6612\n";
}

}  // namespace

TEST_CASE("a zero, negative or NaN step time is refused, naming the value") {
  const std::vector<std::string> sets = {"system=h100-sxm", "gpus=64", "precision=fp8", "model=llama3.1-70b"};
  for (const char* bad : {"0", "-12.6"}) {
    CAPTURE(bad);
    const std::string message = failure_text(import_with_catalog(nemo_steps(bad), "nemo.log", sets));
    CHECK(message.find("nemo.log") == 0);
    CHECK(message.find("no measurement is zero, negative or not a number") != std::string::npos);
  }
  // "nan" is no number to the parser: the line it is on is refused.
  CHECK(failure_text(import_with_catalog(nemo_steps("nan"), "nemo.log", sets)).find("nemo.log:4: ") == 0);
}

TEST_CASE("a step under a microsecond is refused as a unit mix-up") {
  const std::string message = failure_text(import_with_catalog(
      nemo_steps("0.0000001"), "nemo.log", {"system=h100-sxm", "gpus=64", "precision=fp8", "model=llama3.1-70b"}));
  CHECK(message.find("shorter than a microsecond") != std::string::npos);
}

TEST_CASE("a bus bandwidth beyond 1.5 x the system's fabric peak is refused, a negative one too") {
  auto fine = import_with_catalog(nccl_table("373.65"), "nccl.txt");
  REQUIRE_MESSAGE(fine, failure_text(fine));
  const std::string absurd = failure_text(import_with_catalog(nccl_table("9373.65"), "nccl.txt"));
  CHECK(absurd.find("a bus bandwidth of 9373.65 GB/s: more than 1.5 x the h100-sxm fabric's peak") !=
        std::string::npos);
  const std::string negative = failure_text(import_with_catalog(nccl_table("-3.65"), "nccl.txt"));
  CHECK(negative.find("no measurement is negative or not a number") != std::string::npos);
}
