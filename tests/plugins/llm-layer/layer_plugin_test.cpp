// The llm-layer plugin through dgxhost: loads without a driver, validates first, exits 4 without a device.
#include <doctest/doctest.h>

#include "dgx/llm/cuda/device.hpp"
#include "process.hpp"

#include <cstdio>

using dgx::testing::ProcessResult;
using dgx::testing::run_process;

TEST_CASE("dgxhost --list shows the llm-layer workload and its model presets") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("llm-layer  [micro; measure;") != std::string::npos);
  CHECK(r.out.find("llama3.1-70b-layer -> llm-layer") != std::string::npos);
}

TEST_CASE("--describe says that peaks come from the GPU's system profile and names the profiles") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "llm-layer", "--describe"}, {{"COLUMNS", "0"}});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("peak.bf16") != std::string::npos);
  CHECK(r.out.find("the system profile whose device_names match this GPU (configs/systems: ") != std::string::npos);
  CHECK(r.out.find("h100-pcie") != std::string::npos);
}

TEST_CASE("an inconsistent layout is a configuration error (exit 2), with or without a GPU") {
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "llm-layer", "--set", "parallel.tp=3"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("heads (64) must be a multiple of tp (3)") != std::string::npos);
}

TEST_CASE("without a CUDA device, the layer measurement exits 4 saying no CUDA device was found") {
  if (!dgx::llm::cuda::no_device_reason()) {
    std::printf("SKIPPED: a CUDA device is present; this test pins down the path without one\n");
    return;
  }
  const ProcessResult r = run_process(DGX_TEST_DGXHOST, {"--plugin", "llama3.1-8b-layer"});
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("no CUDA device found") != std::string::npos);
}
