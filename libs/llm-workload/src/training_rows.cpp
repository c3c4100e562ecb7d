#include "dgx/llm/workload/training_rows.hpp"

#include <cstdint>
#include <utility>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/training_notes.hpp"

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

constexpr std::uint32_t kHiddenMetric = DGX_METRIC_HIDDEN;
constexpr std::uint32_t kHiddenField = DGX_FIELD_HIDDEN;

}  // namespace

std::string layout_label(const TrainConfig& train, bool moe) {
  const Layout& l = train.layout;
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
  if (train.recompute == Recompute::selective) {
    out += " RC-sel";
  }
  if (train.recompute == Recompute::full) {
    out += " RC-full";
  }
  return out;
}

Headline headline_of(const Projection& p) {
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

Headline headline_of(const ExplorePoint& p, const Assumptions& a) {
  return Headline{.gpus = p.gpus,
                  .step_time_s = p.step_time_s,
                  .tokens_per_s = p.tokens_per_s,
                  .tokens_per_s_per_gpu = p.tokens_per_s_per_gpu,
                  .model_tflops_per_gpu = p.mfu * a.system.dense_peak_flops(p.train.precision) / 1e12,
                  .mfu = p.mfu,
                  .memory_bytes = p.memory_bytes,
                  .days = p.days,
                  .gpu_hours = p.gpu_hours,
                  .cost_usd = a.price ? std::optional<double>(p.cost) : std::nullopt,
                  .dp = p.layout.dp,
                  .microbatches = p.layout.microbatches};
}

void add_headline_metrics(dgx::sdk::Row& row, const Headline& h, RunTime run_time) {
  // Short column titles keep the explore table readable; JSON keeps the names scripts rely on.
  row.metric("step_time", h.step_time_s, "s", 0, "step")
      .metric("tokens_per_s", h.tokens_per_s, "tokens/s", kHiddenMetric)
      .metric("tokens_per_s_per_gpu", h.tokens_per_s_per_gpu, "tokens/s", 0, "tok/s/GPU")
      .metric("model_tflops_per_gpu", h.model_tflops_per_gpu, "TFLOP/s", 0, "TFLOP/s/GPU")
      .metric("mfu", 100 * h.mfu, "%", 0, "MFU %")
      .metric("memory_per_gpu", h.memory_bytes, "B", kHiddenMetric);
  if (run_time == RunTime::days_to_train) {
    row.metric("days_to_train", h.days, "days", 0, "days");
  } else {
    row.metric("hours_to_finetune", 24 * h.days, "h", 0, "hours");
  }
  row.metric("gpu_hours", h.gpu_hours, "GPU-h", h.cost_usd ? kHiddenMetric : 0, "GPU-h");
  if (h.cost_usd) {
    row.metric("cost_usd", *h.cost_usd, "USD", 0, "cost $");
  }
  row.metric("dp", h.dp, "count", kHiddenMetric).metric("microbatches", h.microbatches, "count", kHiddenMetric);
}

void add_training_config(dgx::sdk::Row& row, const Assumptions& a, int gpus, const TrainConfig& t, Compared compared) {
  constexpr std::uint32_t hidden = DGX_CONFIG_HIDDEN;
  row.config(key::model, a.model.name, hidden)
      .config(key::system, a.system.name, hidden)
      .config(key::framework, a.framework.name, compared.framework ? 0 : hidden);
  if (compared.provider) {
    row.config(key::provider, a.provider);
  }
  row.config(key::gpus, gpus)
      .config(key::precision, std::string(to_string(t.precision)))
      .config(key::tp, t.layout.tp, hidden)
      .config(key::pp, t.layout.pp, hidden)
      .config(key::cp, t.layout.cp, hidden)
      .config(key::vp, t.layout.vp, hidden)
      .config(key::ep, t.layout.ep, hidden)
      .config(key::fsdp, t.fsdp, hidden)
      .config(key::pipeline_split, std::string(to_string(t.pipeline_split)), hidden)
      .config(key::mbs, t.mbs, hidden)
      .config(key::gbs, t.gbs, hidden)
      .config(key::seq_len, t.seq_len, hidden)
      .config(key::recompute, std::string(to_string(t.recompute)), hidden)
      .config(key::offload_layers, t.offload_layers, hidden)
      .config(key::distributed_optimizer, t.distributed_optimizer, hidden)
      .config(key::flops_convention, std::string(to_string(t.flops_convention)), hidden);
}

void add_provenance(dgx::sdk::Row& row, const Assumptions& a, const TrainConfig& t, int gpus, bool finetune) {
  const AccuracyBand band = projection_band(a.model, a.system, t.precision, gpus, finetune);
  row.field("model", constants::kModelVersion, kHiddenField)
      .field("system", a.system.name, kHiddenField)
      .field("framework", a.framework.name + " (" + a.framework.display + ")", kHiddenField)
      .field("calibration", a.calibration, kHiddenField)
      .field("band", "±" + text::fixed(100 * band.width, 1) + "%")
      .metric("accuracy_band", 100 * band.width, "%", kHiddenMetric)
      .field("accuracy", band_text(band, a.system, t.precision, gpus), kHiddenField)
      .field("price", a.price_reason, kHiddenField)
      .field("mfu_peak", mfu_peak_label(a.system, t.precision), kHiddenField)
      .field("flops_convention",
             t.flops_convention == AttentionFlops::full
                 ? "full attention: s/h term counted whole (NVIDIA's published MFU convention)"
                 : "causal attention: s/h term halved (the work a causal kernel needs)",
             kHiddenField)
      .field("source", source_label(a.system, a.frameworks_used), kHiddenField);
}

void add_breakdown_metrics(dgx::sdk::Row& row, const StepBreakdown& b) {
  const std::pair<const char*, double> parts[] = {
      {"breakdown.compute", b.compute}, {"breakdown.tp", b.tp_comm},          {"breakdown.cp", b.cp_comm},
      {"breakdown.ep", b.ep_comm},      {"breakdown.pp", b.pp_comm},          {"breakdown.bubble", b.bubble},
      {"breakdown.dp", b.dp_comm},      {"breakdown.optimizer", b.optimizer}, {"breakdown.stragglers", b.stragglers},
      {"breakdown.offload", b.offload}};
  for (const auto& [name, seconds] : parts) {
    row.metric(name, seconds, "s", kHiddenMetric);
  }
}

void add_memory_metrics(dgx::sdk::Row& row, const MemoryBreakdown& m) {
  const std::pair<const char*, double> parts[] = {
      {"memory.weights", m.weights},         {"memory.gradients", m.gradients},
      {"memory.optimizer", m.optimizer},     {"memory.fp8_weight_cache", m.fp8_weight_cache},
      {"memory.activations", m.activations}, {"memory.transient", m.transient},
      {"memory.reserve", m.reserve},         {"memory.capacity", m.capacity}};
  for (const auto& [name, bytes] : parts) {
    row.metric(name, bytes, "B", kHiddenMetric);
  }
}

std::string mfu_peak_label(const SystemProfile& system, Precision precision) {
  const auto peak = system_peak(system, precision);
  return peak ? peak->label() : peak.error().message;
}

std::string source_label(const SystemProfile& system, const std::vector<std::string>& frameworks) {
  const std::string framework =
      frameworks.size() > 1 ? "frameworks " + text::join(frameworks) : "framework " + system.software.framework;
  return std::string("projected: ") + constants::kModelVersion + ", system " + system.name + ", " + framework +
         ", op times: roofline (efficiencies calibrated on configs/baselines/calibration.toml, calibration-2.toml and "
         "calibration-3.toml)";
}

void add_explore_fields(dgx::sdk::Row& row, const ExploreResult& r, std::size_t index, bool moe) {
  const ExplorePoint& p = r.points[index];
  add_explore_fields(row, p, moe, p.pareto, recommended_mark(r, index), std::string(to_string(p.train.precision)));
}

void add_explore_fields(dgx::sdk::Row& row, const ExplorePoint& p, bool moe, bool on_front,
                        const std::string& recommended, const std::string& series) {
  row.field("layout", layout_label(p.train, moe))
      .field("pareto", on_front ? "*" : "")
      .field("recommended", recommended)
      .field("series", series, kHiddenField);
}

std::string series_label(Precision precision, const Assumptions& a, Compared compared) {
  std::string label(to_string(precision));
  if (compared.framework) {
    label += " " + a.framework.name;
  }
  if (compared.provider) {
    label += " " + (a.provider.empty() ? std::string("price") : a.provider);
  }
  return label;
}

}  // namespace dgx::llm::workload
