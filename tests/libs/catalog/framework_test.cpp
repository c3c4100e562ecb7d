#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <map>

using namespace dgx::catalog;

namespace {
SystemProfile catalog_system(std::string_view name) {
  auto found = find_system(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return found.value();
}
FrameworkProfile catalog_framework(std::string_view name) {
  auto found = find_framework(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return found.value();
}
double framework_gemm(const SystemProfile& s, Precision p) {
  return s.efficiency.gemm_software[static_cast<std::size_t>(p)];
}
}  // namespace

TEST_CASE("the framework catalog lists the releases oldest first and defaults to the newest") {
  const std::vector<std::string> names = framework_names();
  REQUIRE(names.size() >= 5);
  CHECK(names.front() == "nemo-24.07");
  // Several families share the catalog (nemo, torchtitan): dates order the whole list, releases of one family
  // follow each other strictly, and the default is the newest of the nemo family.
  CHECK(default_framework() == names.back());
  CHECK(catalog_framework(default_framework()).family == "nemo");
  std::map<std::string, std::string> previous;  // by family
  std::string last;
  for (const std::string& name : names) {
    const FrameworkProfile f = catalog_framework(name);
    CHECK(f.released >= last);
    if (f.inherits.empty() || catalog_framework(f.inherits).family != f.family || f.family == "nemo") {
      CHECK(f.released > previous[f.family]);
    }
    CHECK_FALSE(f.source.empty());
    previous[f.family] = f.released;
    last = f.released;
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
  CHECK(framework_gemm(run, Precision::fp8) != 1.0);
  CHECK(run.efficiency.attention_fwd > h100.efficiency.attention_fwd);
  CHECK(run.gemm_ceiling(Precision::fp8) ==
        doctest::Approx(h100.efficiency.gemm_ceiling_fp8 * framework_gemm(run, Precision::fp8)));
}

TEST_CASE("Blackwell Ultra runs its family's kernels unless a profile names it") {
  const SystemProfile gb300 = catalog_system("gb300-nvl72");
  CHECK(gb300.architecture == "blackwell-ultra");
  const SystemProfile run = apply_framework(gb300, catalog_framework("nemo-25.11"));
  CHECK(framework_gemm(run, Precision::mxfp8) == doctest::Approx(0.82));
}

TEST_CASE("profile errors name the file and the key") {
  const auto bad = parse_framework("name = \"x\"\ndisplay = \"x\"\nreleased = \"2025\"\nsource = \"s\"\n"
                                   "[kernels.hopper]\ngemm_fp8 = 7\n",
                                   "configs/frameworks/x.toml");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.starts_with("configs/frameworks/x.toml:"));
  CHECK(bad.error().message.find(": key 'kernels.hopper.gemm_fp8'") != std::string::npos);
  CHECK(find_framework("nemo-1.0").error().message.find("unknown framework 'nemo-1.0'") == 0);
}

TEST_CASE("torchtitan is a family of its own: FSDP2, its per-op selective recompute and what it cannot express") {
  const FrameworkProfile titan = catalog_framework("torchtitan");
  CHECK(titan.family == "torchtitan");
  CHECK(titan.inherits.empty());
  const Software& s = titan.software;
  CHECK(s.fsdp == FsdpKind::fsdp2);
  CHECK(s.selective == SelectivePolicy::every_other_matmul);
  CHECK(s.grad_reduce_bytes == 4);
  CHECK_FALSE(s.low_precision_params);
  CHECK(s.fp8_weight_cast_bytes > 0);
  CHECK(s.fp32_logits);
  CHECK_FALSE(s.expert_parallel);
  CHECK_FALSE(s.distributed_optimizer);
  CHECK_FALSE(s.activation_offload);
  CHECK_FALSE(s.block_scaled_formats);
  CHECK(titan.kernels.at("hopper").attention.value() < 1);  // FlashAttention-2 under SDPA
  // The variants change one behaviour each and keep the family.
  const FrameworkProfile eager = catalog_framework("torchtitan-eager");
  CHECK(eager.family == "torchtitan");
  CHECK(eager.software.elementwise_traffic > 1);
  CHECK(eager.software.tp_overlap[0] == 0);
  CHECK(catalog_framework("torchtitan-sync-tp").software.tp_overlap[1] == 0);
  CHECK(titan.software.tp_overlap[1] > 0);
  // The NeMo releases keep Megatron's behaviour.
  const Software& nemo = catalog_framework("nemo-26.04.01").software;
  CHECK(nemo.fsdp == FsdpKind::megatron);
  CHECK(nemo.distributed_optimizer);
  CHECK(nemo.family == "nemo");
}

TEST_CASE("an unknown framework name suggests the close ones and lists the catalog") {
  const auto missing = find_framework("nemo-26.02.1");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("unknown framework 'nemo-26.02.1'; did you mean ") == 0);
  CHECK(missing.error().message.find("'nemo-26.02.01'") < missing.error().message.find("the catalog has"));
  CHECK(missing.error().message.find("The catalog has: nemo-24.07") != std::string::npos);
  CHECK(find_framework("titan").error().message.find("did you mean 'torchtitan'") != std::string::npos);
}
