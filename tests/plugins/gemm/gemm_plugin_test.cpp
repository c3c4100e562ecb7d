// The gemm plugin through dgxhost: it loads without a driver, validates its configuration before looking for a
// device, and without a device exits 4 saying why.
#include <doctest/doctest.h>

#include "dgx/llm/cuda/device.hpp"
#include "process.hpp"

#include <cstdio>

using dgx::testing::ProcessResult;
using dgx::testing::run_process;

TEST_CASE("dgxhost --list shows the gemm workload (the plugin loads without touching CUDA)") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("gemm  [micro; measure;") != std::string::npos);
}

TEST_CASE("a malformed shape is a configuration error (exit 2) naming the shape, with or without a GPU") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "gemm", "--set", "gemm.shapes=[\"8x8\"]"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("gemm shape '8x8'") != std::string::npos);
}

TEST_CASE("without a CUDA device, dgxhost --plugin gemm exits 4 saying no CUDA device was found") {
  if (!dgx::llm::cuda::no_device_reason()) {
    std::printf("SKIPPED: a CUDA device is present; this test pins down the path without one\n");
    return;
  }
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "gemm"});
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("no CUDA device found") != std::string::npos);
}
