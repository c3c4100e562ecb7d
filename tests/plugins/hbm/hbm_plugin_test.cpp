// The hbm plugin through dgxhost without a GPU: it loads, validates its configuration first, then exits 4.
#include <doctest/doctest.h>

#include "dgx/llm/cuda/device.hpp"
#include "process.hpp"

#include <cstdio>

using dgx::testing::ProcessResult;
using dgx::testing::run_process;

TEST_CASE("dgxhost --list shows hbm_copy (the plugin loads without touching CUDA)") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("hbm_copy  [micro; measure;") != std::string::npos);
}

TEST_CASE("a copy smaller than 1M is a configuration error (exit 2), with or without a GPU") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "hbm_copy", "--set", "hbm.bytes=4K"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("hbm.bytes must be at least 1M") != std::string::npos);
}

TEST_CASE("without a CUDA device, dgxhost --plugin hbm_copy exits 4 saying no CUDA device was found") {
  if (!dgx::llm::cuda::no_device_reason()) {
    std::printf("SKIPPED: a CUDA device is present; this test pins down the path without one\n");
    return;
  }
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "hbm_copy"});
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("no CUDA device found") != std::string::npos);
}
