// Measure mode on the test double of the layer probe: the LoRA layer (frozen base, adapters, packed samples) is
// what gets measured, its op times replace the model's, the frozen layer alone is timed for the adapters' cost,
// and the cluster projection is labelled measured-calibrated, for the measured GPU's system.
#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/finetune_ops.hpp"
#include "fake_layer_probe.hpp"
#include "llm_host.hpp"
#include "measure_cases.hpp"
#include "measured_timings.hpp"
#include "params.hpp"

using namespace dgx;
using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;
namespace fakes = dgx::llm::kernels::testing;

namespace {

// The "measurement": every op of the model's fine-tuned layer at `scale` times its roofline on the H200 profile;
// a layer without adapters (the frozen base alone) runs 10% faster.
void fake_measurement(double scale) {
  fakes::fake_measurement(
      {.ops =
           [](const llm::ModelConfig& model, const llm::SystemProfile& system, const llm::kernels::LayerSpec& spec) {
             const llm::ShapeKey shape = fakes::model_shape(spec);
             llm::FineTune f;
             f.method = spec.lora.enabled() ? llm::FineTuneMethod::lora : llm::FineTuneMethod::sft;
             f.avg_tokens_per_sample = double(spec.sample_len);
             llm::OpList ops = llm::transformer_layer_ops(model, system, shape);
             llm::apply_finetune(ops, llm::StepChunk::layer, model, system, shape, f);
             return ops;
           },
       .scale = [scale](const llm::kernels::LayerSpec& spec) { return spec.lora.targets() > 0 ? scale : 0.9 * scale; },
       .model_flops = 1e14,
       .peak_bytes = 20ull << 30});
}

struct Run {
  FinetuneHost h;

  explicit Run(const char* preset) {
    fake_measurement(1.0);
    h.use_preset(preset);
    h.set(key::precision, std::vector<std::string>{"bf16"});
    dgx::sdk::Host host(h.api());
    FinetuneWorkload w(host);
    (void)dgx::testing::measure_every_case(w);
    fakes::fake_layer_timing() = nullptr;
  }
};

}  // namespace

TEST_CASE("measure mode runs the LoRA layer with frozen weights, adapters and packed samples, and the frozen base") {
  const Run run("llama8b-lora");
  const auto& specs = fakes::fake_layer_specs();
  REQUIRE(specs.size() == 2);  // the LoRA layer, then the frozen layer without adapters
  CHECK(specs[0].lora.rank == 16);
  CHECK(specs[0].lora.alpha == 32);
  CHECK(specs[0].lora.qkv);
  CHECK_FALSE(specs[0].lora.fc1);
  CHECK(specs[0].sample_len == 512);
  CHECK(specs[0].seq_len == 4096);
  CHECK(specs[1].lora.rank == 16);
  CHECK(specs[1].lora.targets() == 0);
  REQUIRE(run.h.rows.size() == 1);
  const auto& row = run.h.rows[0];
  CHECK(run.h.visibility[0].table == "measured-calibrated projection");
  CHECK(row.fields.at("system") == "h200-sxm");
  CHECK(row.fields.at("source").find("layer ops measured on NVIDIA H200") != std::string::npos);
  CHECK(row.config.at("finetune.method") == "\"lora\"");
  CHECK(run.h.added_metrics.at("layer.adapter_overhead").first == doctest::Approx(1 / 0.9).epsilon(0.02));
  CHECK(run.h.added_metrics.count("layer.frozen_base_time") == 1);
  CHECK(run.h.note("Measured").find("LoRA r16 qkv") != std::string::npos);
  CHECK(run.h.note("Measured").find("samples packed 512 tokens long") != std::string::npos);
}

TEST_CASE("measuring SFT runs the fully trained layer and no frozen base") {
  const Run run("llama8b-sft");
  const auto& specs = fakes::fake_layer_specs();
  REQUIRE(specs.size() == 1);
  CHECK_FALSE(specs[0].lora.enabled());
  CHECK(run.h.added_metrics.count("layer.adapter_overhead") == 0);
  REQUIRE(run.h.rows.size() == 1);
  CHECK(run.h.rows[0].config.at("finetune.method") == "\"sft\"");
}
