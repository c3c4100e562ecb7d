#include "dgx/llm/serve_explorer.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

ServeSpace space(int isl, int osl) {
  ServeSpace s;
  s.base = serve_config({}, isl, osl, 0);
  s.precisions = {Precision::bf16, Precision::fp8, Precision::nvfp4};
  s.max_gpus = 8;
  return s;
}

}  // namespace

TEST_CASE("the sweep marks the per-GPU / per-user Pareto front and recommends the cheapest point within the SLOs") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  // How fast the sweep runs is bench_explore_speed's to measure, not a wall-clock check here (the sanitizer
  // build runs this test several times slower).
  const auto r = explore_serving(model, space(1000, 1000), ServeSlo{.ttft = 2.0, .tpot = 0.05},
                                 Price{.usd_per_gpu_hour = 3, .label = "test"});
  REQUIRE(r.has_value());
  CHECK(r->evaluated == r->points.size());
  CHECK(r->evaluated > 50);
  REQUIRE(r->recommended.has_value());
  const ServeProjection& best = r->points[*r->recommended].projection;
  CHECK(r->points[*r->recommended].meets_slo);
  CHECK(best.tpot.p99 <= 0.05);
  for (const ServePoint& p : r->points) {
    if (p.meets_slo) {
      CHECK(p.projection.output_tokens_per_s_per_gpu <= best.output_tokens_per_s_per_gpu * (1 + 1e-9));
    }
    // Nothing on the front is beaten in both per-GPU and per-user speed.
    if (p.pareto) {
      for (const ServePoint& q : r->points) {
        const bool beats = q.projection.output_tokens_per_s_per_gpu > p.projection.output_tokens_per_s_per_gpu &&
                           q.projection.tpot.median < p.projection.tpot.median;
        CHECK_FALSE(beats);
      }
    }
  }
  CHECK(r->verdict.find("per million output tokens") != std::string::npos);
  REQUIRE(r->notes.size() == 1);
  CHECK(r->notes[0] == "nvfp4 skipped: nvfp4 needs block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, "
                       "gb300-nvl72); h100-sxm has none");
}

TEST_CASE("when no configuration meets the SLOs the verdict says which one binds") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const auto tpot = explore_serving(model, space(1000, 1000), ServeSlo{.ttft = 10, .tpot = 0.001}, std::nullopt);
  REQUIRE(tpot.has_value());
  CHECK_FALSE(tpot->recommended.has_value());
  CHECK(tpot->verdict.find("TPOT <= 1.0 ms binds: the lowest TPOT is") != std::string::npos);
  const auto ttft = explore_serving(model, space(8000, 100), ServeSlo{.ttft = 0.01, .tpot = 1}, std::nullopt);
  REQUIRE(ttft.has_value());
  CHECK(ttft->verdict.find("TTFT <= 10.0 ms binds") != std::string::npos);
}

TEST_CASE("a sweep where nothing fits is an error with a reason") {
  const ServeModel model(catalog_model("llama3.1-405b"), catalog_system("h100-sxm"));
  ServeSpace s = space(1000, 1000);
  s.precisions = {Precision::bf16};
  s.max_gpus = 2;
  const auto r = explore_serving(model, s, ServeSlo{}, std::nullopt);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("no configuration of the sweep can serve llama3.1-405b on h100-sxm: e.g. ") == 0);
}
