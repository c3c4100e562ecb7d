#include "dgx/llm/serve_simulation.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

ServeProjection projection_of(const ServeModel& model, const ServeConfig& c) {
  const auto p = model.project(c);
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  return *p;
}

ServeConfig open_loop(double rate, int requests) {
  ServeConfig c = serve_config({.tp = 4}, 467, 256, 0, Precision::bf16);
  c.request_rate = rate;
  c.requests = requests;
  return c;
}

}  // namespace

TEST_CASE("arrivals are seeded: Poisson gaps average 1 / rate, constant ones are exactly 1 / rate, a burst is at 0") {
  ServeConfig c = open_loop(4, 0);
  const std::vector<double> poisson = arrival_times(c, 4001, 7);
  CHECK(poisson.front() == 0);
  CHECK(poisson.back() / 4000 == doctest::Approx(0.25).epsilon(0.05));
  CHECK(arrival_times(c, 4001, 7) == poisson);
  CHECK(arrival_times(c, 4001, 8) != poisson);
  c.arrival = Arrival::constant;
  const std::vector<double> constant = arrival_times(c, 5, 7);
  CHECK(constant[4] == doctest::Approx(1.0));
  c.arrival = Arrival::burst;
  const std::vector<double> burst = arrival_times(c, 5, 7);
  CHECK(std::all_of(burst.begin(), burst.end(), [](double t) { return t == 0; }));
}

TEST_CASE("lengths come from the table by weight, or from normal distributions clamped to the context") {
  ServeConfig c = open_loop(1, 0);
  auto table = std::make_shared<LengthTable>();
  table->rows = {{.isl = 100, .osl = 10, .weight = 3}, {.isl = 1000, .osl = 20, .weight = 1}};
  c.lengths = table;
  const std::vector<RequestLengths> drawn = draw_lengths(c, 4000, 131072, 3);
  const auto shorter = std::count_if(drawn.begin(), drawn.end(), [](const RequestLengths& r) { return r.isl == 100; });
  CHECK(static_cast<double>(shorter) / 4000 == doctest::Approx(0.75).epsilon(0.05));
  c.lengths = nullptr;
  c.isl_stdev = 5000;
  for (const RequestLengths& r : draw_lengths(c, 500, 2048, 3)) {
    CHECK(r.isl >= 1);
    CHECK(r.isl + r.osl <= 2048);
  }
}

TEST_CASE("below its capacity the replica serves the offered rate, TTFT near an idle prefill, above it the queue "
          "grows, throughput stops at the saturation rate and it says so") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection light = projection_of(model, open_loop(0.5, 300));
  CHECK(light.open_loop);
  CHECK(light.simulated);
  CHECK_FALSE(light.saturated);
  CHECK(light.requests_per_s == doctest::Approx(0.5).epsilon(0.15));
  CHECK(light.ttft.median < 0.2);
  CHECK(light.saturation_rate > 2);
  const ServeProjection heavy = projection_of(model, open_loop(4 * light.saturation_rate, 600));
  CHECK(heavy.saturated);
  CHECK(heavy.requests_per_s < 1.2 * heavy.saturation_rate);
  CHECK(heavy.ttft.p99 > 10 * light.ttft.p99);
  // Every statistic is reported and ordered.
  for (const LatencyStats* s : {&heavy.ttft, &heavy.tpot, &heavy.itl, &heavy.e2e}) {
    CHECK(s->median <= s->p90);
    CHECK(s->p90 <= s->p99);
    CHECK(s->mean > 0);
  }
}

TEST_CASE("a burst sends every request at once, as --request-rate inf: saturated by definition") {
  const ServeModel model(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  ServeConfig c = serve_config({.tp = 1}, 128, 128, 0);
  c.arrival = Arrival::burst;
  c.requests = 500;
  const ServeProjection p = projection_of(model, c);
  CHECK(p.saturated);
  CHECK(p.simulated_requests == 500);
  CHECK(p.ttft.p99 > p.ttft.median);
}

TEST_CASE("ITL pools the gaps between streamed chunks: prompt chunks in some iterations lift its p99 above TPOT") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection p = projection_of(model, open_loop(2, 300));
  CHECK(p.itl.p99 > 1.3 * p.itl.median);
  CHECK(p.itl.mean == doctest::Approx(p.tpot.mean).epsilon(0.25));
}

TEST_CASE("an open-loop run repeats exactly with its seed") {
  const ServeModel model(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  ServeConfig c = serve_config({.tp = 1}, 500, 200, 0);
  c.request_rate = 20;
  c.isl_stdev = 100;
  const auto& steps = model.steps();
  const ServeShape shape = serve_shape(c);
  const SimulationResult a = simulate_open_loop(steps, shape, c, 1e6, 256, 200, 11);
  const SimulationResult b = simulate_open_loop(steps, shape, c, 1e6, 256, 200, 11);
  CHECK(a.ttft.p99 == b.ttft.p99);
  CHECK(a.duration == b.duration);
  CHECK(a.offered_rate == doctest::Approx(20).epsilon(0.2));
}
