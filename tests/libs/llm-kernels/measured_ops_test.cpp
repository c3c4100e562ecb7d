#include <doctest/doctest.h>

#include <dgx/sdk/error.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"
#include "measured_timings.hpp"

using namespace dgx;
using namespace dgx::llm::kernels;

namespace {

struct Layer {
  llm::ModelConfig model = llm::find_model("llama3.1-8b").value();
  llm::SystemProfile system = llm::find_system("h100-sxm").value();
  llm::ShapeKey shape{2, 1, 1, 1, 8192, llm::Precision::bf16, llm::Recompute::none};
  llm::OpList ops() const { return llm::transformer_layer_ops(model, system, shape); }
};

double total(const llm::OpList& ops, const llm::OpTimeProvider& p) {
  double t = 0;
  for (const auto* list : {&ops.forward, &ops.backward}) {
    for (const llm::Op& op : *list) {
      if (!op.is_communication()) {
        t += p.seconds(op);
      }
    }
  }
  return t;
}

}  // namespace

TEST_CASE("the measured layer has the model's architecture and the layout's per-rank parameters") {
  const Layer l;
  llm::TrainConfig train;
  train.layout = {4, 1, 2, 1, 1};
  train.mbs = 2;
  train.seq_len = 0;  // the model's default
  train.precision = llm::Precision::fp8;
  train.recompute = llm::Recompute::selective;
  const llm::kernels::LayerSpec spec = layer_spec_for(l.model, train);
  CHECK(spec.arch.hidden == 4096);
  CHECK(spec.arch.heads == 32);
  CHECK(spec.arch.kv_groups == 8);
  CHECK(spec.arch.activation == llm::kernels::Activation::swiglu);
  CHECK(spec.arch.norm == llm::kernels::Norm::rmsnorm);
  CHECK(spec.layout.tp == 4);
  CHECK(spec.layout.cp == 2);
  CHECK(spec.seq_len == 8192);
  CHECK(spec.micro_batch == 2);
  CHECK(spec.precision == llm::kernels::Precision::fp8);
  CHECK(spec.recompute == llm::kernels::Recompute::selective);
  train.precision = llm::Precision::nvfp4;
  CHECK_THROWS_AS((void)layer_spec_for(l.model, train), dgx::sdk::Unsupported);
}

TEST_CASE("every measured op replaces the model's estimate of the same op, whatever the GEMM's orientation") {
  const Layer l;
  const llm::OpList ops = l.ops();
  const llm::RooflineProvider roofline(l.system);
  llm::MeasuredOverrides measured(roofline);
  const MatchReport report = apply_measurements(testing::timings_of(ops, roofline, 2.0), ops, measured);
  CHECK(report.model_ops > 10);
  CHECK(report.matched == report.model_ops);
  CHECK(report.unmatched_model_ops.empty());
  CHECK(report.extra_measured_ops.empty());
  CHECK(total(ops, measured) == doctest::Approx(2.0 * total(ops, roofline)));
  for (const llm::Op& op : ops.forward) {
    if (!op.is_communication()) {
      CHECK(measured.source(op) == "measured");
    }
  }
}

TEST_CASE("ops the model does not list separately are folded into its memory-bound ops of the same pass") {
  const Layer l;
  const llm::OpList ops = l.ops();
  const llm::RooflineProvider roofline(l.system);
  auto timings = testing::timings_of(ops, roofline, 1.0);
  llm::kernels::OpTiming cast;
  cast.name = "cast_qkv_input";  // a separate FP8 cast; the model assumes it fused into the norm
  cast.pass = llm::kernels::Pass::forward;
  cast.seconds = 1e-3;
  timings.push_back(cast);
  llm::MeasuredOverrides measured(roofline);
  const MatchReport report = apply_measurements(timings, ops, measured);
  CHECK(report.extra_measured_ops == std::vector<std::string>{"cast_qkv_input.forward"});
  CHECK(report.folded_seconds == doctest::Approx(1e-3));
  CHECK(total(ops, measured) == doctest::Approx(total(ops, roofline) + 1e-3));  // the pass keeps its measured total
}

TEST_CASE("a model op nobody measured keeps its estimate and is reported") {
  const Layer l;
  const llm::OpList ops = l.ops();
  const llm::RooflineProvider roofline(l.system);
  auto timings = testing::timings_of(ops, roofline, 3.0);
  std::erase_if(timings, [](const llm::kernels::OpTiming& t) { return t.name == "fc2"; });
  llm::MeasuredOverrides measured(roofline);
  const MatchReport report = apply_measurements(timings, ops, measured);
  CHECK(report.matched == report.model_ops - 3);  // fc2 forward, dgrad and wgrad
  REQUIRE(report.unmatched_model_ops.size() == 3);
  CHECK(report.unmatched_model_ops[0].find("fc2.forward") == 0);
}

TEST_CASE("recomputed ops share their original's time and are not counted twice") {
  Layer l;
  l.shape.recompute = llm::Recompute::full;
  const llm::OpList ops = l.ops();
  const llm::RooflineProvider roofline(l.system);
  llm::MeasuredOverrides measured(roofline);
  const MatchReport report = apply_measurements(testing::timings_of(ops, roofline, 2.0), ops, measured);
  CHECK(report.extra_measured_ops.empty());
  CHECK(report.folded_seconds == 0);
  CHECK(total(ops, measured) == doctest::Approx(2.0 * total(ops, roofline)));
}
