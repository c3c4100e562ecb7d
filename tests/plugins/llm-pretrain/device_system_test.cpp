#include <doctest/doctest.h>

#include "device_system.hpp"

using dgx::plugins::llm_pretrain::system_for_device;

TEST_CASE("measured GPUs map to their system profiles") {
  CHECK(system_for_device("NVIDIA H200") == "h200-sxm");
  CHECK(system_for_device("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(system_for_device("NVIDIA B200") == "b200");
  CHECK(system_for_device("NVIDIA GB200") == "gb200-nvl72");
  CHECK(system_for_device("NVIDIA A100-SXM4-80GB") == "a100-sxm-80gb");
  CHECK_FALSE(system_for_device("NVIDIA GH200 480GB"));  // no profile: not mistaken for an H200
  CHECK_FALSE(system_for_device("NVIDIA RTX 4090"));
}
