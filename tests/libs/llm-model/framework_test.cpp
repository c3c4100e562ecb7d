#include "dgx/llm/framework.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <cstddef>

using namespace dgx::llm;
using dgx::llm::testing::catalog_system;

namespace {
FrameworkProfile catalog_framework(std::string_view name) {
  auto found = find_framework(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return found.value();
}
double gemm(const SystemProfile& s, Precision p) { return s.efficiency.gemm_software[static_cast<std::size_t>(p)]; }
}  // namespace

TEST_CASE("the framework catalog lists the releases oldest first and defaults to the newest") {
  const std::vector<std::string> names = framework_names();
  REQUIRE(names.size() >= 5);
  CHECK(names.front() == "nemo-24.07");
  CHECK(default_framework() == names.back());
  std::string previous;
  for (const std::string& name : names) {
    const FrameworkProfile f = catalog_framework(name);
    CHECK(f.released > previous);
    CHECK_FALSE(f.source.empty());
    previous = f.released;
  }
}

TEST_CASE("a release inherits what it does not set from the release it names") {
  const FrameworkProfile older = catalog_framework("nemo-24.12");
  const FrameworkProfile newer = catalog_framework("nemo-25.09");
  CHECK(newer.inherits == "nemo-24.12");
  // 25.09 sets no BF16 Hopper GEMM efficiency: it keeps 24.12's.
  CHECK(newer.kernels.at("hopper").gemm[0] == older.kernels.at("hopper").gemm[0]);
  CHECK(newer.software.in_place_cross_entropy);
  CHECK_FALSE(older.software.in_place_cross_entropy);
}

TEST_CASE("applying a release sets the system's kernel efficiencies and software behaviour") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const SystemProfile run = apply_framework(h100, catalog_framework("nemo-25.09"));
  CHECK(run.software.framework == "nemo-25.09");
  CHECK(run.software.tp_overlap[static_cast<std::size_t>(Precision::nvfp4)] == 0);
  CHECK(gemm(run, Precision::fp8) != 1.0);
  CHECK(run.efficiency.attention_fwd > h100.efficiency.attention_fwd);
  CHECK(run.gemm_ceiling(Precision::fp8) ==
        doctest::Approx(h100.efficiency.gemm_ceiling_fp8 * gemm(run, Precision::fp8)));
}

TEST_CASE("Blackwell Ultra runs its family's kernels unless a profile names it") {
  const SystemProfile gb300 = catalog_system("gb300-nvl72");
  CHECK(gb300.architecture == "blackwell-ultra");
  const SystemProfile run = apply_framework(gb300, catalog_framework("nemo-25.11"));
  CHECK(gemm(run, Precision::mxfp8) == doctest::Approx(0.805));
}

TEST_CASE("profile errors name the file and the key") {
  const auto bad = parse_framework("name = \"x\"\ndisplay = \"x\"\nreleased = \"2025\"\nsource = \"s\"\n"
                                   "[kernels.hopper]\ngemm_fp8 = 7\n",
                                   "configs/frameworks/x.toml");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("configs/frameworks/x.toml: key 'kernels.hopper.gemm_fp8'") == 0);
  CHECK(find_framework("nemo-1.0").error().message.find("unknown framework 'nemo-1.0'") == 0);
}
