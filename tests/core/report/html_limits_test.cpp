// The limits a run sets (core/src/report/html_limits.cpp): which config keys are a budget or a deadline, in what
// unit, and on which charts' axes they are drawn.
#include <doctest/doctest.h>

#include "html_limits.hpp"  // private to core/src/report: the test target adds that folder

using namespace dgx;

TEST_CASE("a budget in dollars and deadlines in days or hours are limits, any prefix, only positive values") {
  const auto budget = html::limit_of("explore.budget_usd", json::Value(500000.0));
  REQUIRE(budget);
  CHECK(budget->unit == "USD");
  CHECK(budget->label == "budget $500k (explore.budget_usd)");
  CHECK(html::limit_of("explore.deadline_days", json::Value(5))->unit == "days");
  CHECK(html::limit_of("plan.deadline_hours", json::Value(12.5))->label == "deadline 12.5 hours (plan.deadline_hours)");
  CHECK(html::limit_of("explore.deadline_hours", json::Value(12))->unit == "h");
  CHECK_FALSE(html::limit_of("explore.budget_slack", json::Value(0.05)));  // a fraction, no unit
  CHECK_FALSE(html::limit_of("explore.budget_usd", json::Value(0)));       // unset
  CHECK_FALSE(html::limit_of("explore.deadline_days", json::Value("5")));
  CHECK_FALSE(html::limit_of("budget", json::Value(5)));
  CHECK_FALSE(html::limit_of("cost.overbudget_usd", json::Value(5)));
}

TEST_CASE("limits come from the context's config, and each goes on an axis of its quantity") {
  json::Object config;
  config.set("explore.deadline_days", 30);
  config.set("explore.budget_usd", 1e6);
  json::Object context;
  context.set("config", config);
  const auto limits = html::limits_of(context);
  REQUIRE(limits.size() == 2);
  json::Array lines;
  html::add_limits(lines, limits, {"x", "USD", "cost_usd", "USD"});
  html::add_limits(lines, limits, {"y", "h", "hours", "h"});  // hours: no deadline in days converts to it
  html::add_limits(lines, limits, {"y", "", "gpus", ""});     // no unit: none
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].as_object().at("label").as_string() == "budget $1.00M (explore.budget_usd)");
  CHECK(lines[0].as_object().at("axis").as_string() == "x");
  CHECK(html::limits_of(json::Object{}).empty());
}

TEST_CASE("an objective (<...>.slo.<metric>) goes only on the axis of its metric, in that axis' unit") {
  const auto ttft = html::limit_of("serve.slo.ttft", json::Value(0.2));
  REQUIRE(ttft);
  CHECK(ttft->metric == "ttft");
  CHECK_FALSE(html::limit_of("serve.slo.tpot", json::Value(0)));  // 0: no objective
  CHECK_FALSE(html::limit_of("serve.slo", json::Value(1)));       // no metric named
  json::Object config;
  config.set("serve.slo.ttft", 0.2);
  config.set("serve.slo.tpot", 0.05);
  json::Object context;
  context.set("config", config);
  const auto limits = html::limits_of(context);
  REQUIRE(limits.size() == 2);
  json::Array lines;
  html::add_limits(lines, limits, {"x", "s", "tpot", "s"});
  html::add_limits(lines, limits, {"y", "ms", "ttft.p99", "s"});    // a statistic of ttft, in ms (rows: s)
  html::add_limits(lines, limits, {"y", "s", "e2e_latency", "s"});  // a time axis of another metric: none
  html::add_limits(lines, limits, {"y", "s", "ttft_total", "s"});   // nor one that only starts alike
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].as_object().at("label").as_string() == "SLO 0.05 s (serve.slo.tpot)");
  CHECK(lines[0].as_object().at("axis").as_string() == "x");
  CHECK(lines[1].as_object().at("label").as_string() == "SLO 200 ms (serve.slo.ttft)");
  CHECK(lines[1].as_object().at("value").as_number() == doctest::Approx(200));
  CHECK(lines[1].as_object().at("axis").as_string() == "y");
}
