#include "rows.hpp"

#include <cstdint>
#include <utility>

#include "calibration_summary.hpp"
#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/model_constants.hpp"
#include "format.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::Row;

constexpr std::uint32_t kHiddenConfig = DGX_CONFIG_HIDDEN;
constexpr std::uint32_t kHiddenMetric = DGX_METRIC_HIDDEN;
constexpr std::uint32_t kHiddenField = DGX_FIELD_HIDDEN;

void add_config(Row& row, const Assumptions& a, int gpus, const llm::TrainConfig& t, bool framework_column) {
  // The keys users set, so a row can be fed back with --set; only gpus and precision vary as table columns
  // (the layout field stands for the rest), and the framework when releases are compared.
  row.config(key::model, a.model.name, kHiddenConfig)
      .config(key::system, a.system.name, kHiddenConfig)
      .config(key::framework, a.framework.name, framework_column ? 0 : kHiddenConfig)
      .config(key::gpus, gpus)
      .config(key::precision, std::string(llm::to_string(t.precision)))
      .config(key::tp, t.layout.tp, kHiddenConfig)
      .config(key::pp, t.layout.pp, kHiddenConfig)
      .config(key::cp, t.layout.cp, kHiddenConfig)
      .config(key::vp, t.layout.vp, kHiddenConfig)
      .config(key::ep, t.layout.ep, kHiddenConfig)
      .config(key::fsdp, t.fsdp, kHiddenConfig)
      .config(key::pipeline_split, std::string(llm::to_string(t.pipeline_split)), kHiddenConfig)
      .config(key::mbs, t.mbs, kHiddenConfig)
      .config(key::gbs, t.gbs, kHiddenConfig)
      .config(key::seq_len, t.seq_len, kHiddenConfig)
      .config(key::tokens, t.tokens, kHiddenConfig)
      .config(key::recompute, std::string(llm::to_string(t.recompute)), kHiddenConfig)
      .config(key::offload_layers, t.offload_layers, kHiddenConfig)
      .config(key::distributed_optimizer, t.distributed_optimizer, kHiddenConfig)
      .config(key::flops_convention, std::string(llm::to_string(t.flops_convention)), kHiddenConfig);
}

void add_provenance(Row& row, const Assumptions& a, const llm::TrainConfig& t) {
  row.field("model", llm::constants::kModelVersion, kHiddenField)
      .field("system", a.system.name, kHiddenField)
      .field("framework", a.framework.name + " (" + a.framework.display + ")", kHiddenField)
      .field("calibration", a.calibration, kHiddenField)
      .field("accuracy", class_accuracy_text(a.system, t.precision), kHiddenField)
      .field("price", a.price_reason, kHiddenField)
      .field("mfu_peak", mfu_peak_label(a.system, t.precision), kHiddenField)
      .field("flops_convention",
             t.flops_convention == llm::AttentionFlops::full
                 ? "full attention: s/h term counted whole (NVIDIA's published MFU convention)"
                 : "causal attention: s/h term halved (the work a causal kernel needs)",
             kHiddenField)
      .field("source", source_label(a.system), kHiddenField);
}

void add_headline(Row& row, const Headline& h) {
  // Short column titles keep the explore table readable; JSON keeps the names scripts rely on.
  row.metric("step_time", h.step_time_s, "s", 0, "step")
      .metric("tokens_per_s", h.tokens_per_s, "tokens/s", kHiddenMetric)
      .metric("tokens_per_s_per_gpu", h.tokens_per_s_per_gpu, "tokens/s", 0, "tok/s/GPU")
      .metric("model_tflops_per_gpu", h.model_tflops_per_gpu, "TFLOP/s", kHiddenMetric)
      .metric("mfu", 100 * h.mfu, "%", 0, "MFU %")
      .metric("memory_per_gpu", h.memory_bytes, "B", kHiddenMetric)
      .metric("days_to_train", h.days, "days", 0, "days")
      .metric("gpu_hours", h.gpu_hours, "GPU-h", h.cost_usd ? kHiddenMetric : 0, "GPU-h");
  if (h.cost_usd) {
    row.metric("cost_usd", *h.cost_usd, "USD", 0, "cost $");
  }
  row.metric("dp", h.dp, "count", kHiddenMetric).metric("microbatches", h.microbatches, "count", kHiddenMetric);
}

void add_breakdown(Row& row, const llm::StepBreakdown& b) {
  const std::pair<const char*, double> parts[] = {
      {"breakdown.compute", b.compute}, {"breakdown.tp", b.tp_comm},          {"breakdown.cp", b.cp_comm},
      {"breakdown.ep", b.ep_comm},      {"breakdown.pp", b.pp_comm},          {"breakdown.bubble", b.bubble},
      {"breakdown.dp", b.dp_comm},      {"breakdown.optimizer", b.optimizer}, {"breakdown.stragglers", b.stragglers},
      {"breakdown.offload", b.offload}};
  for (const auto& [name, seconds] : parts) {
    row.metric(name, seconds, "s", kHiddenMetric);
  }
}

}  // namespace

std::string layout_label(const llm::TrainConfig& train, bool moe) {
  const llm::Layout& l = train.layout;
  std::string out = "TP" + std::to_string(l.tp) + " PP" + std::to_string(l.pp) + " CP" + std::to_string(l.cp) + " VP" +
                    std::to_string(l.vp);
  if (moe || l.ep > 1) {
    out += " EP" + std::to_string(l.ep);
  }
  out += " MBS" + std::to_string(train.mbs);
  if (train.fsdp) {
    out += " FSDP";
  }
  if (train.offload_layers > 0) {
    out += " OFF" + std::to_string(train.offload_layers);
  }
  if (train.recompute == llm::Recompute::selective) {
    out += " RC-sel";
  }
  if (train.recompute == llm::Recompute::full) {
    out += " RC-full";
  }
  return out;
}

Row projected_row(const std::string& table, const Assumptions& assumptions, const llm::TrainConfig& train,
                  const Headline& headline, const llm::StepBreakdown& breakdown, bool framework_column) {
  Row row(dgx::sdk::ResultMode::projected);
  row.table(table);
  add_config(row, assumptions, headline.gpus, train, framework_column);
  add_provenance(row, assumptions, train);
  add_headline(row, headline);
  add_breakdown(row, breakdown);
  return row;
}

void add_memory_metrics(Row& row, const llm::MemoryBreakdown& m) {
  const std::pair<const char*, double> parts[] = {
      {"memory.weights", m.weights},         {"memory.gradients", m.gradients},
      {"memory.optimizer", m.optimizer},     {"memory.fp8_weight_cache", m.fp8_weight_cache},
      {"memory.activations", m.activations}, {"memory.transient", m.transient},
      {"memory.reserve", m.reserve},         {"memory.capacity", m.capacity}};
  for (const auto& [name, bytes] : parts) {
    row.metric(name, bytes, "B", kHiddenMetric);
  }
}

std::string mfu_peak_label(const llm::SystemProfile& system, llm::Precision precision) {
  const auto peak = llm::system_peak(system, precision);
  return peak ? peak->label() : peak.error().message;
}

std::string source_label(const llm::SystemProfile& system) {
  return std::string("projected: ") + llm::constants::kModelVersion + ", system " + system.name + ", framework " +
         system.software.framework +
         ", op times: roofline (efficiencies calibrated on configs/baselines/calibration.toml and calibration-2.toml)";
}

Headline headline_of(const llm::Projection& p) {
  return Headline{.gpus = p.layout.gpus,
                  .step_time_s = p.step_time_s,
                  .tokens_per_s = p.tokens_per_s,
                  .tokens_per_s_per_gpu = p.tokens_per_s_per_gpu,
                  .model_tflops_per_gpu = p.model_tflops_per_gpu,
                  .mfu = p.mfu,
                  .memory_bytes = p.memory.total(),
                  .days = p.days_to_train,
                  .gpu_hours = p.gpu_hours,
                  .cost_usd = p.cost_usd,
                  .dp = p.layout.dp,
                  .microbatches = p.layout.microbatches};
}

}  // namespace dgx::plugins::llm_pretrain
