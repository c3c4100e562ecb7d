#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/workload/training_notes.hpp"
#include "llm_fixtures.hpp"

using namespace dgx::plugins::llm_pretrain;
using dgx::llm::workload::Assumptions;

namespace {

Assumptions assumptions(bool priced) { return dgx::testing::h100_assumptions("llama3.1-70b", priced); }

dgx::llm::ExplorePoint point(int gpus, double days, double cost, bool pareto) {
  dgx::llm::ExplorePoint p;
  p.gpus = gpus;
  p.train.precision = dgx::llm::Precision::fp8;
  p.train.layout = {.tp = 4, .pp = 4, .cp = 2, .vp = 5, .ep = 1};
  p.days = days;
  p.cost = cost;
  p.gpu_hours = cost;
  p.pareto = pareto;
  return p;
}

dgx::llm::ExploreResult result() {
  dgx::llm::ExploreResult r;
  r.points = {point(64, 100, 1.00e6, true), point(128, 51, 1.04e6, true), point(256, 30, 1.2e6, true),
              point(512, 40, 1.3e6, false)};
  r.fastest_within_budget = 1;
  r.evaluated = 1000;
  r.feasible = 400;
  return r;
}

}  // namespace

TEST_CASE("a point is described by GPUs, precision, layout, days and cost") {
  CHECK(describe_point(point(512, 14.44, 523471, true), assumptions(true)) ==
        "512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 14.4 days, $523k");
  CHECK(describe_point(point(64, 2.5, 1234.5, true), assumptions(false)) ==
        "64 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 2.50 days, 1,234 GPU-hours");
}

TEST_CASE("the Pareto note lists the front fastest first") {
  const std::string text = Pretraining({}, assumptions(true)).pareto_note(result());
  const auto p256 = text.find("256 GPUs");
  const auto p128 = text.find("128 GPUs");
  const auto p64 = text.find("64 GPUs");
  CHECK(p256 < p128);
  CHECK(p128 < p64);
  CHECK(text.find("512 GPUs") == std::string::npos);
}

TEST_CASE("the recommendation names the pick, the slack and the cheapest, a deadline is offered") {
  PretrainSettings s;
  s.budget_slack = 0.05;
  const std::string text = Pretraining(s, assumptions(true)).recommendation_note(result());
  CHECK(text.find("128 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 51.0 days, $1.04M (recommended = yes): the fastest "
                  "configuration whose cost is within +5% (explore.budget_slack = 0.05) of the cheapest; the "
                  "cheapest is 64 GPUs") == 0);
  CHECK(text.find("--set explore.deadline_days=DAYS") != std::string::npos);
  dgx::llm::ExploreResult late = result();
  s.deadline_days = 20;
  CHECK(Pretraining(s, assumptions(false))
            .recommendation_note(late)
            .find("No configuration trains within 20.0 days "
                  "(explore.deadline_days); the fastest is 256 GPUs") != std::string::npos);
  CHECK(Pretraining(s, assumptions(false)).recommendation_note(late).find("compared in GPU-hours") !=
        std::string::npos);
  late.cheapest_meeting_deadline = 2;
  s.deadline_days = 35;
  CHECK(Pretraining(s, assumptions(true))
            .recommendation_note(late)
            .find("Within the deadline of 35.0 days (explore.deadline_days), "
                  "the cheapest is 256 GPUs") != std::string::npos);
}

TEST_CASE("the dropped note counts layouts over the memory and explains GPU counts without a layout") {
  dgx::llm::ExploreResult r = result();
  r.infeasible = {{.gpus = 8, .valid_layouts = 120, .leanest_bytes = 100.0 * 1024 * 1024 * 1024},
                  {.gpus = 7, .valid_layouts = 0, .leanest_bytes = 0}};
  r.notes = {"h100-sxm does not support nvfp4: skipped"};
  const std::string text = dgx::llm::workload::dropped_note(r, assumptions(true));
  CHECK(text.find("600 of 1,000 valid layouts need more than the 80.0 GiB of h100-sxm per GPU") == 0);
  CHECK(text.find("No layout fits at 8 GPUs (the leanest of 120 valid layouts needs 100.0 GiB).") != std::string::npos);
  CHECK(text.find("No valid layout at 7 GPUs") != std::string::npos);
  CHECK(text.find("h100-sxm does not support nvfp4: skipped.") != std::string::npos);
  dgx::llm::ExploreResult clean = result();
  clean.feasible = clean.evaluated;
  CHECK(dgx::llm::workload::dropped_note(clean, assumptions(true)).empty());
}

TEST_CASE("the sweep note states GPU counts, precisions, layout ranges and the batch rule") {
  PretrainSettings s;
  s.precisions = {dgx::llm::Precision::bf16, dgx::llm::Precision::fp8};
  s.gpus_min = 64;
  s.gpus_max = 16384;
  s.train.gbs = 1024;
  const std::string text = Pretraining(s, assumptions(true)).sweep_note();
  CHECK(text.find("GPU counts: 64, 128, ..., 16384: powers of two") == 0);
  CHECK(text.find("Precisions: bf16, fp8.") != std::string::npos);
  CHECK(text.find("TP 1-8 x PP 1-16 x CP 1-8") != std::string::npos);
  CHECK(text.find("1024 sequences at every GPU count") != std::string::npos);
  // A preset's or the user's `gpus` does not narrow the sweep: the note says so.
  CHECK(text.find("(gpus, parallel.*, train.mbs and train.recompute only set --mode project's configuration)") !=
        std::string::npos);
  s.gbs_per_gpu = 16;
  s.explore_gpus = {8, 64};
  const std::string weak = Pretraining(s, assumptions(true)).sweep_note();
  CHECK(weak.find("GPU counts: 8, 64 (explore.gpus)") == 0);
  CHECK(weak.find("16 sequences per GPU (explore.gbs_per_gpu)") != std::string::npos);
}
