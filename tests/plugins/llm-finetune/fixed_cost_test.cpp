// The fixed time of a fine-tuning job (fixed_cost.cpp): start-up, checkpoint load and save, evaluation, minimum
// billing, and what they do to the recommendation of a small job.
#include "fixed_cost.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/llm/catalog.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

namespace {

/// The recommended row's GPU count and hours.
std::pair<int, double> pick(const FinetuneHost& h) {
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    if (h.rows[i].fields.at("recommended") == "yes") {
      return {std::stoi(h.rows[i].config.at("gpus")), h.metric(i, "hours_to_finetune")};
    }
  }
  return {0, 0};
}

void small_job(FinetuneHost& h) {
  h.use_preset("llama70b-lora");
  h.set(key::gpus_max, std::int64_t{1024});
  h.set(key::samples, std::int64_t{10000});
}

}  // namespace

TEST_CASE("a job's fixed time: start-up, the base weights read per GPU, the result saved, evaluation") {
  const auto model = dgx::llm::find_model("llama3.1-70b");
  REQUIRE(model);
  dgx::llm::TrainConfig train;
  train.layout = {.tp = 2, .pp = 2, .cp = 1, .vp = 1, .ep = 1};
  const FixedCostSettings s;
  dgx::llm::FineTune lora;
  lora.method = dgx::llm::FineTuneMethod::lora;
  const FixedCost c = fixed_cost(s, *model, lora, train, 2);
  CHECK(c.startup_s == 600);
  CHECK(c.eval_s == 300);
  CHECK(c.load_s == doctest::Approx(70.6e9 / 4 * 2 / 0.25e9).epsilon(0.01));  // a quarter of 141 GB at 0.25 GB/s
  CHECK(c.save_s < 1);                                                        // LoRA saves the adapters only
  dgx::llm::FineTune sft;
  sft.method = dgx::llm::FineTuneMethod::sft;
  CHECK(fixed_cost(s, *model, sft, train, 2).save_s > c.load_s);  // weights and the sharded optimizer state
}

TEST_CASE("every GPU is billed the run plus the fixed time, and at least the minimum") {
  FixedCostSettings s;
  s.min_billing_minutes = 60;
  const FixedCost c{.startup_s = 360, .load_s = 0, .save_s = 0, .eval_s = 0};
  const dgx::llm::Price price{.usd_per_gpu_hour = 2, .label = "test"};
  const BilledRun short_run = billed_run(0.1 / 24, 8, c, s, price);
  CHECK(24 * short_run.days == doctest::Approx(0.2));
  CHECK(short_run.gpu_hours == doctest::Approx(8));  // an hour's minimum
  CHECK(short_run.cost == doctest::Approx(16));
  const BilledRun long_run = billed_run(10.0 / 24, 8, c, s, std::nullopt);
  CHECK(long_run.cost == doctest::Approx(8 * 10.1));  // GPU-hours without a price
}

TEST_CASE("with the fixed time a small job is recommended few GPUs, on steps alone it spreads over many") {
  FinetuneHost steps_only;
  small_job(steps_only);
  steps_only.set(key::startup_minutes, 0.0);
  steps_only.set(key::eval_minutes, 0.0);
  steps_only.set(key::storage_gb_s, 1e6);
  steps_only.set(key::min_billing_minutes, 0.0);
  REQUIRE(steps_only.run("explore") == "");
  CHECK(pick(steps_only).first >= 32);
  CHECK(pick(steps_only).second < 0.1);

  FinetuneHost h;
  small_job(h);
  REQUIRE(h.run("explore") == "");
  const auto [gpus, hours] = pick(h);
  CHECK(gpus <= 8);
  CHECK(hours > 0.25);  // the fixed time is in the hours
  const std::string note = h.note("Fixed cost per job");
  CAPTURE(note);
  CHECK(note.find("start-up 10 min (finetune.startup_minutes") != std::string::npos);
  CHECK(note.find("evaluation 5.0 min (finetune.eval_minutes)") != std::string::npos);
  CHECK(note.find("cost.min_billing_minutes") != std::string::npos);
}

TEST_CASE("project mode counts the fixed time as explore does") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  REQUIRE(h.run("project") == "");
  const double with_fixed = h.metric(0, "hours_to_finetune");
  FinetuneHost bare;
  bare.use_preset("llama70b-lora");
  bare.set(key::startup_minutes, 0.0);
  bare.set(key::eval_minutes, 0.0);
  REQUIRE(bare.run("project") == "");
  CHECK(with_fixed - bare.metric(0, "hours_to_finetune") == doctest::Approx(0.25));
}

TEST_CASE("negative fixed times and a zero bandwidth are config errors naming the key") {
  for (const char* name : {key::startup_minutes, key::eval_minutes, key::min_billing_minutes, key::storage_gb_s}) {
    FinetuneHost h;
    h.use_preset("llama8b-lora");
    h.set(name, std::string(name) == key::storage_gb_s ? 0.0 : -1.0);
    CHECK_MESSAGE(h.run("explore").find(name) != std::string::npos, name);
  }
}
