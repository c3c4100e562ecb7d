#include "dgx/llm/step_model.hpp"

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/flops.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

namespace {
Projection project_ok(StepModel& step_model, int gpus, const TrainConfig& t) {
  auto p = step_model.project(gpus, t);
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  return p.value();
}
const Layout k70bLayout{.tp = 4, .pp = 4, .cp = 2, .vp = 5};
}  // namespace

TEST_CASE("the step breakdown sums to the step time and the derived metrics follow their formulas") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const TrainConfig t = train(k70bLayout, 1, 1024, 8192);
  const Projection p = project_ok(m, 512, t);
  const StepBreakdown& b = p.breakdown;
  CHECK(b.total() == doctest::Approx(p.step_time_s));
  CHECK(b.compute > 0);
  CHECK(b.tp_comm > 0);
  CHECK(b.bubble > 0);
  CHECK(b.dp_comm > 0);
  CHECK(b.optimizer > 0);
  CHECK(p.tokens_per_s == doctest::Approx(8192.0 * 1024 / p.step_time_s));
  CHECK(p.tokens_per_s_per_gpu == doctest::Approx(p.tokens_per_s / 512));
  const double flops = model_flops_per_sequence(catalog_model("llama3.1-70b"), 8192);
  CHECK(p.model_flops_per_sequence == doctest::Approx(flops));
  CHECK(p.mfu == doctest::Approx(1024 * flops / p.step_time_s / 512 /
                                 catalog_system("h100-sxm").dense_peak_flops(Precision::bf16)));
  CHECK(p.days_to_train == doctest::Approx(1e12 / p.tokens_per_s / 86400));
  CHECK(p.gpu_hours == doctest::Approx(p.days_to_train * 24 * 512));
  CHECK_FALSE(p.cost_usd.has_value());
  CHECK(p.provenance.find("projected: dgx-llm-model") == 0);
  CHECK(p.provenance.find("full attention") != std::string::npos);
}

TEST_CASE("at a fixed per-GPU layout more GPUs never lower the total throughput") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  double previous = 0;
  for (int gpus = 32; gpus <= 16384; gpus *= 2) {
    CAPTURE(gpus);
    const Projection p = project_ok(m, gpus, train(k70bLayout, 1, 2 * gpus, 8192));
    CHECK(p.tokens_per_s > previous);
    previous = p.tokens_per_s;
  }
}

TEST_CASE("FP8 steps are faster than BF16 for the same large layout") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const Projection bf16 = project_ok(m, 512, train(k70bLayout, 1, 1024, 8192));
  const Projection fp8 = project_ok(m, 512, train(k70bLayout, 1, 1024, 8192, Precision::fp8));
  CHECK(fp8.step_time_s < 0.85 * bf16.step_time_s);
  CHECK(fp8.peak_tflops == doctest::Approx(catalog_system("h100-sxm").peak_fp8_tflops));  // MFU against the FP8 peak
}

TEST_CASE("full recompute is slower than none but uses less memory, selective sits between") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  TrainConfig t = train(k70bLayout, 1, 1024, 8192);
  const Projection none = project_ok(m, 512, t);
  t.recompute = Recompute::selective;
  const Projection selective = project_ok(m, 512, t);
  t.recompute = Recompute::full;
  const Projection full = project_ok(m, 512, t);
  CHECK(full.step_time_s > selective.step_time_s);
  CHECK(selective.step_time_s > none.step_time_s);
  CHECK(full.memory.total() < none.memory.total());
}

TEST_CASE("more pipeline microbatches shrink the bubble share of the step") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const Projection few = project_ok(m, 256, train(k70bLayout, 1, 64, 8192));
  const Projection many = project_ok(m, 256, train(k70bLayout, 1, 512, 8192));
  CHECK(many.breakdown.bubble / many.step_time_s < few.breakdown.bubble / few.step_time_s);
}

TEST_CASE("a layout that does not fit says how much it needs and what the GPU has") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  TrainConfig t = train({.tp = 8}, 1, 64, 8192);
  t.distributed_optimizer = false;
  const auto p = m.project(64, t);
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().message.find("needs ") == 0);
  CHECK(p.error().message.find(" GiB per GPU, h100-sxm has 80.0 GiB (first stage: weights") != std::string::npos);
}

TEST_CASE("invalid input is an error value, never an exception") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const auto p = m.project(100, train(k70bLayout, 1, 100, 8192));
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().message == "gpus 100 not divisible by tp×pp×cp = 32");
  CHECK_THROWS_AS((void)p.value(), BadExpectedAccess);
}

TEST_CASE("measured op times replace the roofline op by op and the provenance says so") {
  const ModelConfig llama = catalog_model("llama3.1-8b");
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  MeasuredOverrides measured(roofline);
  const ShapeKey shape{.cp = 2, .mbs = 1, .seq_len = 8192};
  const OpList ops = transformer_layer_ops(llama, h100, shape);
  const Op& fc1 = *std::find_if(ops.forward.begin(), ops.forward.end(), [](const Op& op) { return op.name == "fc1"; });
  measured.set(fc1, 2 * roofline.seconds(fc1));

  StepModel base(llama, h100);
  StepModel slower(llama, h100, &measured);
  const TrainConfig t = train({.cp = 2}, 1, 128, 8192);
  const Projection a = project_ok(base, 8, t);
  const Projection b = project_ok(slower, 8, t);
  const double extra = 32 * 32 * roofline.seconds(fc1);  // 32 layers × 32 microbatches
  CHECK(b.breakdown.compute - a.breakdown.compute == doctest::Approx(extra).epsilon(0.001));
  CHECK(b.provenance.find("1 of ") != std::string::npos);
  CHECK(b.provenance.find("ops measured") != std::string::npos);
}

TEST_CASE("the catalog entry point costs the projection at the default price") {
  ProjectionRequest request{
      .model = "llama3.1-70b", .system = "h100-sxm", .gpus = 512, .train = train(k70bLayout, 1, 1024, 8192)};
  const auto p = project(request);
  REQUIRE(p.has_value());
  REQUIRE(p->cost_usd.has_value());
  CHECK(*p->cost_usd == doctest::Approx(p->gpu_hours * 2.95));
  CHECK(p->price_label.find("nebius on-demand") == 0);
  request.price_provider = "aws";
  CHECK(project(request)->cost_usd.value() == doctest::Approx(p->gpu_hours * 6.88));
  request.model = "gpt5";
  CHECK(project(request).error().message.find("unknown model 'gpt5'") == 0);
}

TEST_CASE("fine-tuning: LoRA steps faster than SFT, with the adapters' gradients the only DP traffic") {
  StepModel m(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  const TrainConfig t = train({.tp = 1}, 1, 128, 4096);
  FineTune f;
  f.avg_tokens_per_sample = 512;
  m.set_finetune(f);
  const Projection sft = project_ok(m, 32, t);
  f.method = FineTuneMethod::lora;
  m.set_finetune(f);
  const Projection lora = project_ok(m, 32, t);
  CHECK(lora.step_time_s < 0.75 * sft.step_time_s);
  CHECK(lora.breakdown.dp_comm < 0.05 * sft.breakdown.dp_comm);
  CHECK(lora.breakdown.optimizer < 0.2 * sft.breakdown.optimizer);
  CHECK(lora.memory.total() < sft.memory.total());
  const double executed = finetune_flops_per_sequence(m.model(), 4096, f);
  CHECK(lora.model_flops_per_sequence == doctest::Approx(executed));
  CHECK(lora.mfu == doctest::Approx(128 * executed / lora.step_time_s / 32 / 989e12).epsilon(1e-6));
  m.set_finetune(std::nullopt);  // back to pretraining
  CHECK(project_ok(m, 32, t).model_flops_per_sequence == doctest::Approx(model_flops_per_sequence(m.model(), 4096)));
}

TEST_CASE("fine-tuning settings the model cannot take are errors of project()") {
  StepModel m(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  FineTune f;
  f.method = FineTuneMethod::lora;
  f.lora.rank = 5000;
  m.set_finetune(f);
  const auto p = m.project(8, train({.tp = 1}, 1, 32, 4096));
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().message.find("LoRA rank 5000") != std::string::npos);
}

TEST_CASE("MemoryCheck::report projects a configuration that does not fit and leaves the verdict to the caller") {
  StepModel m(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const TrainConfig t = train({.tp = 8}, 1, 32, 4096);
  CHECK_FALSE(m.project(8, t).has_value());
  const auto p = m.project(8, t, std::nullopt, MemoryCheck::report);
  REQUIRE(p.has_value());
  CHECK_FALSE(p->memory.fits());
}

TEST_CASE("FSDP gathers and reduce-scatters every layer per microbatch, NVLink hides it on NVL72") {
  StepModel model(catalog_model("llama3.1-70b"), testing::released_system("gb200-nvl72"));
  TrainConfig t = train({.tp = 1}, 2, 128, 8192, Precision::fp8);
  t.fsdp = true;
  t.offload_layers = 40;
  const auto p = model.project(64, t);
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  CHECK(p->breakdown.dp_comm > 0);
  CHECK(p->breakdown.dp_comm < 0.05 * p->step_time_s);  // 64 GPUs inside one NVLink domain
  CHECK(p->breakdown.offload < 0.08 * p->step_time_s);  // NVLink-C2C keeps up: only the overlap slowdown
  // Across nodes of 8 the same gathers run over the NICs and show.
  StepModel b200(catalog_model("llama3.1-70b"), testing::released_system("b200"));
  t.offload_layers = 0;
  t.mbs = 1;
  const auto across = b200.project(64, [&] {
    TrainConfig r = t;
    r.recompute = Recompute::full;
    return r;
  }());
  REQUIRE_MESSAGE(across.has_value(), (across ? "" : across.error().message));
  CHECK(across->breakdown.dp_comm > p->breakdown.dp_comm);
}

TEST_CASE("activation offloading over PCIe shows where NVLink-C2C hides it") {
  TrainConfig t = train({.tp = 1}, 2, 128, 8192, Precision::fp8);
  t.fsdp = true;
  t.offload_layers = 40;
  SystemProfile pcie = testing::released_system("gb200-nvl72");
  pcie.host_link_gb_s = 16;
  const auto slow = StepModel(catalog_model("llama3.1-70b"), pcie).project(64, t);
  const auto fast = StepModel(catalog_model("llama3.1-70b"), testing::released_system("gb200-nvl72")).project(64, t);
  REQUIRE(slow.has_value());
  REQUIRE(fast.has_value());
  CHECK(slow->breakdown.offload > 10 * fast->breakdown.offload);
  CHECK(slow->step_time_s > fast->step_time_s);
}

TEST_CASE("an eager MoE layer waits for the host where its kernels are shorter than their launches, graphs help") {
  const auto framework = find_framework("nemo-26.04.01");
  REQUIRE(framework.has_value());
  const SystemProfile b200 = apply_framework(catalog_system("b200"), *framework);
  REQUIRE(b200.software.host_op_us > 0);
  StepModel m(catalog_model("qwen3-235b-a22b"), b200);
  TrainConfig t = train(Layout{.tp = 1, .pp = 8, .ep = 8, .etp = 1}, 1, 8192, 4096);
  t.precision = Precision::mxfp8;
  const Projection eager = project_ok(m, 256, t);
  CHECK(eager.breakdown.host > 0);  // 16 local experts: a GEMM and a quantization launched for each
  CHECK(eager.breakdown.total() == doctest::Approx(eager.step_time_s));
  t.cuda_graphs =
      scope_bit(GraphScope::attn) | scope_bit(GraphScope::moe_router) | scope_bit(GraphScope::moe_preprocess);
  const Projection graphed = project_ok(m, 256, t);
  CHECK(graphed.breakdown.host < eager.breakdown.host);
  t.layout.ep = 32;  // 4 local experts of 4x the tokens each: fewer launches, the GPU's kernels longer
  const Projection wide = project_ok(m, 256, t);
  CHECK(wide.breakdown.host < graphed.breakdown.host);
  // A dense model is never host-bound: without the dispatcher's synchronisation the host runs ahead.
  StepModel dense(catalog_model("llama3.1-8b"), b200);
  CHECK(project_ok(dense, 8, train(Layout{}, 1, 128, 8192)).breakdown.host == 0);
}

namespace {
/// `model` with its layers written as groups of the default layer: the same model, grouped.
ModelConfig split_into_identical_groups(ModelConfig model, const std::vector<int>& counts) {
  const LayerGroup kind = model.layer_mix().front();
  for (const int count : counts) {
    LayerGroup group = kind;
    group.count = count;
    model.layer_groups.push_back(group);
  }
  return model;
}
}  // namespace

TEST_CASE("a grouped model whose groups are all of the default kind projects as the ungrouped model does") {
  for (const char* name : {"llama3.1-8b", "qwen3-30b-a3b"}) {
    CAPTURE(name);
    const ModelConfig plain = catalog_model(name);
    const ModelConfig grouped = split_into_identical_groups(plain, {plain.layers / 4, plain.layers - plain.layers / 4});
    StepModel a(plain, catalog_system("h100-sxm"));
    StepModel b(grouped, catalog_system("h100-sxm"));
    for (const Layout layout : {Layout{.tp = 2}, Layout{.tp = 1, .pp = 4, .ep = plain.moe() ? 8 : 1}}) {
      for (const Recompute recompute : {Recompute::none, Recompute::full}) {
        TrainConfig t = train(layout, 1, 256, 4096, Precision::fp8);
        t.recompute = recompute;
        const Projection x = project_ok(a, 64, t);
        const Projection y = project_ok(b, 64, t);
        CHECK(y.step_time_s == doctest::Approx(x.step_time_s).epsilon(1e-12));
        CHECK(y.memory.total() == doctest::Approx(x.memory.total()).epsilon(1e-12));
        CHECK(y.model_flops_per_sequence == doctest::Approx(x.model_flops_per_sequence).epsilon(1e-12));
        CHECK(y.mfu == doctest::Approx(x.mfu).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("a hybrid model's stage costs its share of each group: the mean layer is the groups' count-weighted mean") {
  const ModelConfig hybrid = dgx::llm::testing::fixture_model("nemotron-h-8b-like");
  const SystemProfile h100 = catalog_system("h100-sxm");
  StepModel m(hybrid, h100);
  const ShapeKey key{.tp = 2, .mbs = 1, .seq_len = 8192, .precision = Precision::fp8};
  double mean = 0;
  for (const LayerGroup& group : hybrid.layer_groups) {
    StepModel one(hybrid.layer_view(group), h100);
    mean += one.shape_cost(key).layer.total() * group.count / hybrid.layers;
  }
  CHECK(m.shape_cost(key).layer.total() == doctest::Approx(mean).epsilon(1e-12));
  // The projection runs end to end: 52 layers over 4 stages, the Mamba-2 scans and the MLP-only layers included.
  const Projection p = project_ok(m, 64, train(Layout{.tp = 2, .pp = 4}, 1, 128, 8192, Precision::fp8));
  CHECK(p.step_time_s > 0);
  CHECK(p.memory.fits());
  CHECK(p.model_flops_per_sequence == doctest::Approx(model_flops_per_sequence(hybrid, 8192)));
  CHECK(p.mfu > 0.1);
  CHECK(p.mfu < 0.8);
}
