// Measure mode on the test double of the serve probe: the measured op times replace the serving model's, and the
// replica projected from them is labelled measured-calibrated, for the measured GPU's system.
#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "fake_serve_probe.hpp"
#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx;
using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;
namespace fakes = dgx::plugins::llm_inference::testing;

namespace {

/// Every op of an iteration at `scale` times its roofline on the H200, with the kernels library's names and shapes.
std::vector<llm::kernels::OpTiming> timings_of(const std::vector<llm::Op>& ops, const llm::OpTimeProvider& roofline,
                                               double scale, double& total) {
  std::vector<llm::kernels::OpTiming> out;
  for (const llm::Op& op : ops) {
    if (op.is_communication()) {
      continue;
    }
    llm::kernels::OpTiming t;
    t.name = std::string(op.name);
    t.seconds = roofline.seconds(op) * scale;
    if (const auto* g = std::get_if<llm::GemmShape>(&op.shape)) {
      t.kind = llm::kernels::OpKind::gemm;
      t.gemm = {g->m, g->n, g->k, g->groups};
    }
    total += t.seconds;
    out.push_back(t);
  }
  return out;
}

void fake_measurement(double scale) {
  fakes::fake_serve_specs().clear();
  fakes::fake_serve_timing() = [scale](const llm::kernels::ServeLayerSpec& spec) {
    const llm::ModelConfig model = llm::find_model("llama3.1-70b").value();
    const llm::SystemProfile system = llm::find_system("h200-sxm").value();
    const llm::RooflineProvider roofline(system, llm::RooflineProvider::GemmFill::split_k);
    const llm::ServeShape shape{{spec.tp, 1, spec.ep}, llm::Precision::fp8, llm::Precision::fp8};
    const double d = double(spec.decode_batch);
    const llm::StepLoad decode{.decode_seqs = d, .decode_kv_tokens = d * double(spec.context), .logit_rows = d};
    llm::StepLoad chunk = decode;
    chunk.prefill_tokens = double(spec.prefill_tokens);
    chunk.prefill_pairs = chunk.prefill_tokens * 0.5 * (chunk.prefill_tokens + 1);
    llm::kernels::ServeLayerTiming t;
    t.decode = timings_of(llm::serve_layer_ops(model, system, shape, decode), roofline, scale, t.decode_seconds);
    t.chunk = timings_of(llm::serve_layer_ops(model, system, shape, chunk), roofline, scale, t.chunk_seconds);
    return t;
  };
}

}  // namespace

TEST_CASE("measure mode times the configuration's decode iteration and projects the replica from measured ops") {
  fake_measurement(1.5);
  InferenceHost h;
  h.use_preset("llama70b-serve");
  dgx::sdk::Host host(h.api());
  InferenceWorkload w(host);
  w.setup();
  REQUIRE(fakes::fake_serve_specs().size() == 1);
  const llm::kernels::ServeLayerSpec& spec = fakes::fake_serve_specs().front();
  CHECK(spec.tp == 2);
  CHECK(spec.decode_batch > 100);     // the offline steady state's decoding batch
  CHECK(spec.context == 1000 + 500);  // the mean context: ISL + OSL / 2
  CHECK(spec.prefill_tokens > 0);
  CHECK(w.case_count() == 1);
  const sdk::Case c = w.begin_case(0);
  CHECK(c.label.find("decode iteration, batch") != std::string::npos);
  sdk::SampleResult result;
  w.run(sdk::SampleRequest{.iterations = 4}, result);
  CHECK(result.timing == sdk::Timing::device_events);
  w.end_case(0, sdk::Stats{.samples = 10, .median = result.seconds / 4});
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(h.visibility.front().table == "measured-calibrated projection");
  CHECK(row.fields.at("source").find("measured-calibrated projection: ") == 0);
  CHECK(row.fields.at("system") == "h200-sxm");  // the measured GPU's profile, not the preset's h100-sxm
  CHECK(h.added_metrics.count("layer.decode_time") == 1);
  CHECK(h.added_metrics.count("layer.mbu") == 1);
  CHECK(h.note("Model vs measurement").find("with the measured ops: TPOT") != std::string::npos);
  fakes::fake_serve_timing() = nullptr;
}

TEST_CASE("without a device, or for a MoE model, measure mode is unavailable and auto mode projects") {
  fakes::fake_serve_timing() = nullptr;
  InferenceHost h;
  CHECK_THROWS_AS(require_serve_probe(dgx::sdk::Host(h.api())), dgx::sdk::NoDevice);
  fake_measurement(1.0);
  InferenceHost moe;
  moe.use_preset("mixtral8x7b-serve");
  CHECK_THROWS_WITH_AS(require_serve_probe(dgx::sdk::Host(moe.api())),
                       "the measured serving layer is dense (Llama); mixtral-8x7b is projected only",
                       dgx::sdk::Unsupported);
  fakes::fake_serve_timing() = nullptr;
}
