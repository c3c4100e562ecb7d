#include <doctest/doctest.h>

#include "dgx/core/verdict/reference_match.hpp"
#include "dgx/core/verdict/reference_store.hpp"

using namespace dgx;

namespace {

constexpr const char* kBaseline = R"(
[[reference]]
workload = "train"
match = ["model", "precision"]
near = ["gpus", "tp"]
keys = { tp = "parallel.tp" }
values = [
  { column = "published", where = { metric = "step_time_s" }, metric = "step_time", unit = "s" },
  { column = "published_mfu", metric = "mfu", unit = "1", per_gpu = true },
]

[[reference]]
where = { kind = "nccl" }
match = ["workload", "system", "size"]
keys = { system = "info.system", size = "metric.size" }
values = [{ column = "busbw", metric = "busbw", unit = "GB/s", per_gpu = true }]

[[row]]
label = "8 GPUs"
model = "m"
precision = "bf16"
gpus = 8
tp = 1
metric = "step_time_s"
published = 12.0
published_mfu = 0.6
source = "somewhere"

[[row]]
label = "64 GPUs"
model = "m"
precision = "bf16"
gpus = 64
tp = 4
metric = "step_time_s"
published = 13.0
published_mfu = 0.55

[[row]]
kind = "nccl"
workload = "all_reduce"
system = ["h100-sxm", "h200-sxm"]
size = { min = 1073741824 }
busbw = 480
)";

ResultRow train_row(int gpus, int tp) {
  ResultRow row;
  row.workload = "train";
  row.mode = ResultMode::projected;
  row.config.set("model", "m");
  row.config.set("precision", "bf16");
  row.config.set("gpus", gpus);
  row.config.set("parallel.tp", tp);
  row.add_metric({"step_time", 12.5, "s", false, {}});
  row.add_metric({"mfu", 57.0, "%", false, {}});
  return row;
}

}  // namespace

TEST_CASE("baseline files yield one reference per row and view, with their constraints and values") {
  const auto refs = parse_references(kBaseline, "test.toml");
  REQUIRE(refs);
  REQUIRE(refs->size() == 3);
  const Reference& first = refs->front();
  CHECK(first.label == "8 GPUs");
  CHECK(first.source == "somewhere");
  CHECK(first.exact.size() == 3);  // workload, model, precision
  REQUIRE(first.values.size() == 2);
  CHECK(first.values[0].metric == "step_time");
  CHECK_FALSE(first.values[0].per_gpu);
  CHECK(first.values[1].per_gpu);
  CHECK(refs->at(2).exact.at(1).describe() == "h100-sxm|h200-sxm");
  CHECK(refs->at(2).exact.at(2).describe() == ">= 1073741824");
}

TEST_CASE("a bad view is an error naming the file") {
  const auto refs = parse_references("[[reference]]\nworkload = \"x\"\n", "bad.toml");
  REQUIRE_FALSE(refs);
  CHECK(refs.error().message.find("bad.toml") != std::string::npos);
}

TEST_CASE("the exact reference wins, otherwise the nearest, with its differences named") {
  const auto refs = parse_references(kBaseline, "test.toml");
  REQUIRE(refs);
  auto exact = find_reference(train_row(64, 4), *refs);
  REQUIRE(exact);
  CHECK(exact->exact());
  CHECK(exact->reference->label == "64 GPUs");
  auto nearest = find_reference(train_row(512, 4), *refs);
  REQUIRE(nearest);
  CHECK(nearest->reference->label == "64 GPUs");  // tp agrees: one difference instead of two
  CHECK(nearest->describe_differences() == "gpus 512 (reference 64)");
  ResultRow other = train_row(8, 1);
  other.config.set("precision", "fp8");
  CHECK_FALSE(find_reference(other, *refs));
}

TEST_CASE(
    "a reference beyond 4x the row's GPU count is not comparable, and a comparable one wins over a nearer layout") {
  const auto refs = parse_references(kBaseline, "test.toml");
  REQUIRE(refs);
  const auto scaled = find_reference(train_row(128, 1), *refs);  // 8 GPUs agrees in tp but is 16x away
  REQUIRE(scaled);
  CHECK(scaled->reference->label == "64 GPUs");
  CHECK(scaled->comparable());
  CHECK(scaled->describe_differences() == "gpus 128 (reference 64), parallel.tp 1 (reference 4)");
  const auto far = find_reference(train_row(512, 4), *refs);
  REQUIRE(far);
  CHECK_FALSE(far->comparable());
  CHECK(far->incomparable == "gpus 512 is 8.00x the reference's 64 (comparable within 4.00x)");
}

TEST_CASE("an exact match compares the first value, a nearest one only per-GPU values, in the row's unit") {
  const auto refs = parse_references(kBaseline, "test.toml");
  REQUIRE(refs);
  const ResultRow row = train_row(64, 4);
  const auto c = headline_comparison(row, *find_reference(row, *refs));
  REQUIRE(c);
  CHECK(c->metric == "step_time");
  CHECK(c->ratio == doctest::Approx(13.0 / 12.5));
  const ResultRow far = train_row(512, 4);
  const auto n = headline_comparison(far, *find_reference(far, *refs));
  REQUIRE(n);
  CHECK(n->metric == "mfu");
  CHECK(n->reference == doctest::Approx(55.0));  // 0.55 of "1" in %
  CHECK(n->ratio == doctest::Approx(57.0 / 55.0));
}

TEST_CASE("constraints read info fields and metrics, accept lists and ranges") {
  const auto refs = parse_references(kBaseline, "test.toml");
  REQUIRE(refs);
  ResultRow row;
  row.workload = "all_reduce";
  row.add_field({"system", "h200-sxm", true});
  row.add_metric({"size", 4294967296.0, "B", false, {}});
  row.add_metric({"busbw", 456, "GB/s", false, {}});
  auto match = find_reference(row, *refs);
  REQUIRE(match);
  CHECK(headline_comparison(row, *match)->ratio == doctest::Approx(0.95));
  row.add_metric({"size", 1048576.0, "B", false, {}});
  CHECK_FALSE(find_reference(row, *refs));
}
