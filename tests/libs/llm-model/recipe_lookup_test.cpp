#include "dgx/llm/recipe_lookup.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::released_system;

TEST_CASE("the published recipe of a model and system is the run nearest in scale, same precision first") {
  const auto recipe = find_recipe("llama3.1-70b", "h100-sxm", 64, Precision::fp8);
  REQUIRE(recipe.has_value());
  CHECK(recipe->gpus == 64);
  CHECK(recipe->train.layout.tp == 4);
  CHECK(recipe->train.layout.pp == 8);
  CHECK(recipe->framework == "nemo-26.02.01");  // the newest of the 25.09 - 26.02.01 runs of that layout
  const auto far = find_recipe("llama3.1-405b", "h100-sxm", 4096, Precision::fp8);
  REQUIRE(far.has_value());
  CHECK((far->gpus == 2560 || far->gpus == 8192));
  CHECK_FALSE(find_recipe("llama3.1-70b", "a100-sxm-80gb", 64).has_value());
  CHECK(layout_label(recipe->train) == "TP4 PP8 CP1 VP5");
}

TEST_CASE("the pick is compared with the recipe projected the same way: a tie inside the band") {
  StepModel model(catalog_model("llama3.1-70b"), released_system("h100-sxm"));
  const auto recipe = find_recipe("llama3.1-70b", "h100-sxm", 64, Precision::fp8);
  REQUIRE(recipe.has_value());
  // The pick: the recipe's own layout at one microbatch more per pipeline, slightly different.
  TrainConfig train = recipe->train;
  train.layout.vp = 1;
  const auto projection = model.project(64, train);
  REQUIRE(projection.has_value());
  ExplorePoint pick;
  pick.gpus = 64;
  pick.train = projection->train;
  pick.step_time_s = projection->step_time_s;
  AccuracyBand band;
  band.width = 0.5;
  const auto tie = compare_with_recipe(model, pick, *recipe, band);
  REQUIRE_MESSAGE(tie.has_value(), (tie ? "" : tie.error().message));
  CHECK(tie->advantage < 0);  // without interleaving the bubble is larger: the recipe is faster
  CHECK(tie->tie);
  CHECK(tie->line.find("TP4 PP8 CP1 VP1: ") == 0);
  CHECK(tie->line.find("over the published TP4 PP8 CP1 VP5 (NeMo 26.02.01 (Megatron-Bridge), 64 GPUs), inside the "
                       "±50.0% band: a tie; the recipe is the safer choice") != std::string::npos);
  band.width = 0.001;
  const auto beyond = compare_with_recipe(model, pick, *recipe, band);
  REQUIRE(beyond.has_value());
  CHECK_FALSE(beyond->tie);
  CHECK(beyond->line.find("beyond the ±0.1% band: the pick is expected to be slower") != std::string::npos);
}

TEST_CASE("the comparison is with the recipe as it ran: the model's own error on its published run corrects it") {
  StepModel model(catalog_model("llama3.1-70b"), released_system("h100-sxm"));
  const auto recipe = find_recipe("llama3.1-70b", "h100-sxm", 64, Precision::fp8);
  REQUIRE(recipe.has_value());
  const auto residual = recipe_residual_of(*recipe, AccuracyModel::embedded().outcomes());
  REQUIRE(residual.has_value());
  const auto projection = model.project(64, recipe->train);
  REQUIRE(projection.has_value());
  ExplorePoint pick;
  pick.gpus = 64;
  pick.train = projection->train;
  pick.train.layout.tp = 2;  // a different label, the same step: only the correction separates them
  pick.step_time_s = projection->step_time_s;
  AccuracyBand band;
  band.width = 0.01;
  const auto c = compare_with_recipe(model, pick, *recipe, band, residual);
  REQUIRE(c.has_value());
  CHECK(c->advantage == doctest::Approx(0).epsilon(1e-9));
  CHECK(c->corrected_advantage == doctest::Approx(*residual));
  CHECK(c->line.find("the model projects the recipe's run") != std::string::npos);
}

TEST_CASE("the tied alternatives of a pick are the points whose days lie inside its band") {
  ExploreResult result;
  for (const double days : {10.0, 10.4, 12.0}) {
    ExplorePoint p;
    p.days = days;
    result.points.push_back(p);
  }
  AccuracyBand band;
  band.width = 0.05;
  CHECK(tied_points(result, 0, band) == std::vector<std::size_t>{1});
  CHECK(tied_points(result, 2, band).empty());
}
