#include "dgx/llm/workload/training_rows.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "workload_host.hpp"

using namespace dgx::llm::workload;

TEST_CASE("the run time of a row is days of pretraining or hours of fine-tuning, from the same headline") {
  dgx::testing::FakeHost h;
  const dgx::sdk::Host host(h.api());
  Headline headline{.gpus = 8, .step_time_s = 1, .days = 0.5, .gpu_hours = 96, .cost_usd = 300.0};
  dgx::sdk::Row pretraining(dgx::sdk::ResultMode::projected);
  add_headline_metrics(pretraining, headline, RunTime::days_to_train);
  host.emit(pretraining);
  dgx::sdk::Row finetuning(dgx::sdk::ResultMode::projected);
  add_headline_metrics(finetuning, headline, RunTime::hours_to_finetune);
  host.emit(finetuning);
  REQUIRE(h.rows.size() == 2);
  CHECK(h.rows[0].metrics.at("days_to_train").first == 0.5);
  CHECK(h.rows[0].metrics.count("hours_to_finetune") == 0);
  CHECK(h.rows[1].metrics.at("hours_to_finetune").first == 12);
  CHECK(h.rows[1].metrics.at("hours_to_finetune").second == "h");
  CHECK(h.rows[1].metrics.at("cost_usd").first == 300);
}

TEST_CASE("the model and layout texts name what a sweep covers") {
  const auto model = dgx::llm::find_model("mixtral-8x7b").value();
  CHECK(model_text(model).find("Mixtral") == 0);
  CHECK(model_text(model).find("active: 2 of 8 experts") != std::string::npos);
  const std::string layouts = layouts_text(model, dgx::llm::find_system("h100-sxm").value());
  CHECK(layouts == "TP 1-8 x PP 1-16 x CP 1-8 x VP (interleaved chunks) x EP 1-8 x MBS 1-8 x recompute "
                   "none/selective/full");
}
