#include "dgx/llm/explorer.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;

namespace {

/// A small sweep: a fixed batch of 2048 sequences, micro-batch 1 and no recompute; the test sets the GPU counts.
ExploreSpace fixed_batch_2048_without_recompute() {
  ExploreSpace space;
  space.batch = BatchRule{.kind = BatchRule::Kind::fixed, .value = 2048};
  space.mbs = {1};
  space.recomputes = {Recompute::none};
  return space;
}

}  // namespace

TEST_CASE("the Pareto front keeps the points no other point beats in both days and cost") {
  const std::vector<CostPoint> points = {
      {.days = 100, .cost = 10},                             // cheapest
      {.days = 50, .cost = 10.4}, {.days = 60, .cost = 12},  // dominated by the one before
      {.days = 25, .cost = 11},   {.days = 25, .cost = 11},  // a tie: neither dominates the other
      {.days = 10, .cost = 20},                              // fastest
  };
  CHECK(pareto_front(points) == std::vector<bool>{true, true, false, true, true, true});
}

TEST_CASE("the recommendation is the fastest point within the budget slack over the cheapest") {
  const std::vector<CostPoint> points = {
      {.days = 100, .cost = 10}, {.days = 50, .cost = 10.4}, {.days = 25, .cost = 11}, {.days = 10, .cost = 20}};
  CHECK(fastest_within_budget(points, 0.05) == 1u);
  CHECK(fastest_within_budget(points, 0.10) == 2u);
  CHECK(fastest_within_budget(points, 0.0) == 0u);
  CHECK(fastest_within_budget(points, 1.0) == 3u);
  CHECK_FALSE(fastest_within_budget(std::vector<CostPoint>{}, 0.05).has_value());
}

TEST_CASE("with a deadline the cheapest point that meets it is named") {
  const std::vector<CostPoint> points = {
      {.days = 100, .cost = 10}, {.days = 50, .cost = 10.4}, {.days = 25, .cost = 11}, {.days = 10, .cost = 20}};
  CHECK(cheapest_meeting_deadline(points, 30) == 2u);
  CHECK(cheapest_meeting_deadline(points, 50) == 1u);
  CHECK_FALSE(cheapest_meeting_deadline(points, 5).has_value());
}

TEST_CASE("exploring keeps the fastest feasible layout per GPU count and precision and recommends one") {
  StepModel m(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  ExploreSpace space;
  space.gpu_counts = {8, 64, 512};
  space.precisions = {Precision::bf16, Precision::fp8};
  space.batch = BatchRule{.kind = BatchRule::Kind::per_gpu, .value = 16};
  ExploreOptions options;
  options.price = Price{.usd_per_gpu_hour = 2.95, .label = "test"};
  options.deadline_days = 20;
  const auto result = explore(m, space, options);
  REQUIRE_MESSAGE(result.has_value(), (result ? "" : result.error().message));
  REQUIRE(result->points.size() == 6);
  CHECK(result->evaluated > 1000);
  CHECK(result->feasible <= result->evaluated);
  for (const ExplorePoint& p : result->points) {
    CAPTURE(p.gpus);
    CHECK(p.memory_bytes <= catalog_system("h100-sxm").hbm_bytes());
    CHECK(p.train.gbs == 16 * p.gpus);
    CHECK(p.cost == doctest::Approx(p.gpu_hours * 2.95));
    // The best layout is at least as fast as the calibration layout (TP1 CP2) at that size.
    TrainConfig reference = p.train;
    reference.layout = Layout{.cp = 2};
    reference.mbs = 1;
    reference.recompute = Recompute::none;
    const auto known = m.project(p.gpus, reference);
    if (known) {
      CHECK(p.step_time_s <= known->step_time_s * (1 + 1e-9));
    }
  }
  CHECK(result->points[1].train.precision == Precision::fp8);
  CHECK(result->points[1].step_time_s < result->points[0].step_time_s);
  REQUIRE(result->fastest_within_budget.has_value());
  REQUIRE(result->cheapest_meeting_deadline.has_value());
  CHECK(result->points[*result->cheapest_meeting_deadline].days <= 20);
  CHECK(result->recommendation.find("fastest within 5% of the cheapest cost") == 0);
  CHECK(std::any_of(result->points.begin(), result->points.end(), [](const ExplorePoint& p) { return p.pareto; }));
}

TEST_CASE("explore reports GPU counts without a feasible layout and refuses an empty sweep") {
  StepModel m(catalog_model("llama3.1-405b"), catalog_system("h100-sxm"));
  ExploreSpace space = fixed_batch_2048_without_recompute();
  space.gpu_counts = {8, 4096};
  const auto result = explore(m, space);
  REQUIRE(result.has_value());
  CHECK(result->points.size() == 1);
  REQUIRE(result->infeasible.size() == 1);
  CHECK(result->infeasible.front().gpus == 8);
  CHECK(result->notes.empty());  // the infeasible count is structured, not repeated as a remark
  CHECK(result->cost_unit == "GPU-hours");
  space.precisions.clear();
  CHECK_FALSE(explore(m, space).has_value());
}

TEST_CASE("explore says how much memory the leanest layout of an infeasible GPU count needs") {
  StepModel m(catalog_model("llama3.1-405b"), catalog_system("h100-sxm"));
  ExploreSpace space = fixed_batch_2048_without_recompute();
  space.gpu_counts = {8, 4096};
  const auto result = explore(m, space);
  REQUIRE(result.has_value());
  REQUIRE(result->infeasible.size() == 1);
  CHECK(result->infeasible.front().gpus == 8);
  CHECK(result->infeasible.front().valid_layouts > 0);
  CHECK(result->infeasible.front().leanest_bytes > catalog_system("h100-sxm").hbm_bytes());

  space.gpu_counts = {8};
  const auto none = explore(m, space);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message.find("the leanest needs ") != std::string::npos);
  CHECK(none.error().message.find("h100-sxm has 80.0 GiB") != std::string::npos);
  space.gpu_counts = {127};  // a prime above the 126 layers: 2048 sequences, 128 heads and 8192 tokens do not divide
  const auto invalid = explore(m, space);
  REQUIRE_FALSE(invalid.has_value());
  CHECK(invalid.error().message.find("no layout is valid at these GPU counts") != std::string::npos);
}

TEST_CASE("exploring a fine-tuning method: LoRA of a 70B model fits from 4 GPUs, SFT needs more") {
  const auto smallest = [](FineTuneMethod method) {
    StepModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
    FineTune f;
    f.method = method;
    f.avg_tokens_per_sample = 512;
    model.set_finetune(f);
    ExploreSpace space;
    space.gpu_counts = {1, 2, 4, 8, 16, 32};
    space.precisions = {Precision::bf16};
    space.batch = BatchRule{.kind = BatchRule::Kind::fixed, .value = 32};
    space.seq_len = 4096;
    space.tokens = 1e9;
    const auto r = explore(model, space);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
    return r->points.front().gpus;
  };
  CHECK(smallest(FineTuneMethod::lora) <= 4);
  CHECK(smallest(FineTuneMethod::sft) >= 16);
}

TEST_CASE("exploring an MoE model sweeps expert TP, folding EP over the TP ranks") {
  // Qwen3-235B on 256 H100 at TP 2 PP 8: EP 32 needs all 32 ranks of a stage, so only expert TP 1 folds.
  StepModel model(catalog_model("qwen3-235b-a22b"), testing::released_system("h100-sxm"));
  ExploreSpace space;
  space.gpu_counts = {256};
  space.precisions = {Precision::fp8};
  space.batch = BatchRule{.kind = BatchRule::Kind::fixed, .value = 8192};
  space.tp = {2};
  space.pp = {8};
  space.cp = {1};
  space.vp = {4};
  space.ep = {32};
  space.mbs = {1};
  space.recomputes = {Recompute::none};
  space.ep_overlap = true;
  const auto result = explore(model, space);
  REQUIRE_MESSAGE(result.has_value(), (result ? "" : result.error().message));
  REQUIRE(result->points.size() == 1);
  CHECK(result->points.front().layout.layout.etp == 1);
  CHECK(result->points.front().layout.edp == 1);
  CHECK(result->points.front().train.ep_overlap);  // interleaved: the overlap applies
}

TEST_CASE("a framework without Megatron's distributed optimizer is explored with FSDP, and a note says so") {
  StepModel model(catalog_model("llama3.1-8b"),
                  apply_framework(catalog_system("h100-sxm"), find_framework("torchtitan").value()));
  ExploreSpace space = fixed_batch_2048_without_recompute();
  space.gpu_counts = {64};
  const auto result = explore(model, space);
  REQUIRE_MESSAGE(result.has_value(), (result ? "" : result.error().message));
  CHECK(result->points.front().train.fsdp);
  REQUIRE(result->notes.size() == 1);
  CHECK(result->notes.front().find("framework torchtitan has no Megatron distributed optimizer") == 0);
}
