#include "dgx/llm/serve_explorer.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("an offline point is a batch job: held to no latency objective, picked only when there is none") {
  const ServeModel model(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  ServeSpace s = space(1000, 1000);
  s.precisions = {Precision::fp8};
  s.tp = {1};
  s.pp = {1};
  s.max_gpus = 1;
  // Without objectives the offline point, the engine kept full, is the cheapest per token.
  const auto batch = explore_serving(model, s, ServeSlo{}, std::nullopt);
  REQUIRE(batch.has_value());
  REQUIRE(batch->recommended.has_value());
  CHECK(batch->points[*batch->recommended].projection.offline);
  // Objectives that its steady-state latencies would meet still do not make it a service.
  const ServeProjection& offline = batch->points[*batch->recommended].projection;
  const ServeSlo loose{.ttft = 2 * offline.ttft.p99, .tpot = 2 * offline.tpot.p99};
  const auto service = explore_serving(model, s, loose, std::nullopt);
  REQUIRE(service.has_value());
  REQUIRE(service->recommended.has_value());
  CHECK_FALSE(service->points[*service->recommended].projection.offline);
  for (const ServePoint& p : service->points) {
    if (p.projection.offline) {
      CHECK_FALSE(p.meets_slo);
    }
  }
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

TEST_CASE("aggregated and disaggregated deployments share one front, and the verdict says which wins and why") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  ServeSpace space;
  space.base = serve_config({}, 8000, 1000, 0);
  space.precisions = {Precision::fp8};
  space.auto_kv = true;
  space.max_gpus = 8;
  space.disaggregated = true;
  const auto r = explore_serving(model, space, ServeSlo{.ttft = 2.0, .tpot = 0.03}, std::nullopt);
  REQUIRE(r.has_value());
  const auto disaggregated = std::count_if(r->points.begin(), r->points.end(),
                                           [](const ServePoint& p) { return p.projection.disaggregation.has_value(); });
  CHECK(disaggregated > 0);
  CHECK(disaggregated < static_cast<long>(r->points.size()));
  REQUIRE(r->recommended.has_value());
  CHECK(!r->mode_verdict.empty());
  CHECK((r->mode_verdict.find("Disaggregated wins") == 0 || r->mode_verdict.find("Aggregated wins") == 0));
  CHECK(r->mode_verdict.find("prompt chunk of 8000 tokens") != std::string::npos);
  for (const ServePoint& p : r->points) {
    CHECK(p.projection.gpus() <= 8);
  }
}

TEST_CASE("an open-loop load searches each configuration's highest request rate within the SLOs") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  ServeSpace space;
  space.base = serve_config({}, 467, 256, 0, Precision::bf16);
  space.base.request_rate = 1;
  space.precisions = {Precision::bf16};
  space.tp = {4, 8};
  space.pp = {1};
  space.max_gpus = 8;
  space.capacity_requests = 150;
  const ServeSlo slo{.ttft = 0.5, .tpot = 0.05};
  const auto r = explore_serving(model, space, slo, Price{.usd_per_gpu_hour = 2.0, .label = "test"});
  REQUIRE(r.has_value());
  CHECK(r->capacity_search);
  REQUIRE(r->points.size() == 2);
  for (const ServePoint& p : r->points) {
    CHECK(p.projection.open_loop);
    CHECK(p.meets_slo);
    CHECK(p.projection.config.request_rate > 1);
    CHECK(p.projection.config.request_rate <= p.projection.saturation_rate);
  }
  CHECK(r->verdict.find("requests/s") != std::string::npos);
}

namespace {

ServePoint fleet_point(int tp, double requests_per_s, bool meets_slo, double usd_per_mtok = 1) {
  ServePoint point;
  point.projection.config.layout = {.tp = tp};
  point.projection.requests_per_s = requests_per_s;
  point.projection.output_tokens_per_s = 1000;
  point.projection.usd_per_million_output_tokens = usd_per_mtok;
  point.meets_slo = meets_slo;
  return point;
}

}  // namespace

TEST_CASE("a fleet for a request rate takes the fewest GPUs of whole replicas that meet the SLOs") {
  ServeExploreResult result;
  result.points = {fleet_point(1, 2.0, true), fleet_point(4, 10.0, true), fleet_point(2, 100.0, false)};
  // 9 requests/s: 5 x TP1 (5 GPUs) against 1 x TP4 (4 GPUs); the TP2 point misses the SLOs.
  const auto fleet = size_fleet(result, 9.0, 8);
  REQUIRE(fleet);
  CHECK(fleet->point == 1);
  CHECK(fleet->replicas == 1);
  CHECK(fleet->gpus == 4);
  CHECK(fleet->per_replica == doctest::Approx(10));
  REQUIRE(fleet->usd_per_hour);
  CHECK(*fleet->usd_per_hour == doctest::Approx(1.0 * 1000 * 3600 / 1e6));
  const auto exact = size_fleet(result, 4.0, 8);  // 2 x TP1 = 2 GPUs, exactly
  REQUIRE(exact);
  CHECK(exact->replicas == 2);
  CHECK(exact->gpus == 2);
}

TEST_CASE("a rate the fleet cannot carry, or no point within the SLOs, is an error naming the GPUs it needs") {
  ServeExploreResult result;
  result.points = {fleet_point(4, 10.0, true)};
  const auto big = size_fleet(result, 95.0, 16);
  REQUIRE_FALSE(big);
  CHECK(big.error().message.find("needs 40 GPUs") != std::string::npos);
  CHECK(big.error().message.find("more than the fleet's 16") != std::string::npos);
  result.points.front().meets_slo = false;
  const auto none = size_fleet(result, 1.0, 0);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("meets the SLOs") != std::string::npos);
  CHECK_FALSE(size_fleet(result, 0.0, 0));
}
