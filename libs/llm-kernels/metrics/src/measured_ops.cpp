#include "dgx/llm/kernels/measured_ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include <dgx/sdk/error.hpp>

namespace dgx::llm::kernels {

namespace {

std::array<std::int64_t, 3> sorted_dims(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::array<std::int64_t, 3> d{a, b, c};
  std::sort(d.begin(), d.end());
  return d;
}

bool gemm_matches(const llm::GemmShape& model, const GemmDims& measured) {
  return model.groups == measured.groups &&
         sorted_dims(model.m, model.n, model.k) == sorted_dims(measured.m, measured.n, measured.k);
}

bool is_memory_op(const llm::Op& op) { return std::holds_alternative<llm::MemoryShape>(op.shape); }

// Seconds of all measured calls of this model op, or nothing when none was measured.
std::optional<double> measured_seconds(const llm::Op& op, const std::vector<OpTiming>& measured,
                                       std::vector<bool>& used) {
  double total = 0;
  bool found = false;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const OpTiming& m = measured[i];
    if (m.name != op.name || op.pass != m.pass || m.recompute != op.recompute) {
      continue;
    }
    if (const auto* gemm = std::get_if<llm::GemmShape>(&op.shape)) {
      if (m.kind != OpKind::gemm || !gemm_matches(*gemm, m.gemm)) {
        continue;
      }
    }
    total += m.seconds * m.calls;
    used[i] = true;
    found = true;
  }
  return found ? std::optional<double>(total) : std::nullopt;
}

}  // namespace

LayerSpec layer_spec_for(const llm::ModelConfig& model, const llm::TrainConfig& train) {
  LayerSpec spec;
  Architecture& a = spec.arch;
  a.hidden = model.hidden;
  a.ffn = model.ffn;
  a.heads = model.heads;
  a.kv_groups = model.kv_groups;
  a.activation = model.activation == llm::Activation::swiglu ? Activation::swiglu
                 : model.activation == llm::Activation::gelu ? Activation::gelu
                                                             : Activation::squared_relu;
  a.norm = model.norm_bias ? Norm::layernorm : Norm::rmsnorm;
  a.rope = model.rope;
  a.experts = model.experts > 1 ? model.experts : 0;
  a.top_k = model.experts > 1 ? model.top_k : 0;
  a.vocab = model.vocab;
  spec.layout.tp = train.layout.tp;
  spec.layout.cp = train.layout.cp;
  spec.layout.ep = train.layout.ep;
  spec.seq_len = train.seq_len > 0 ? train.seq_len : model.seq_len;
  spec.micro_batch = train.mbs;
  switch (train.precision) {
  case llm::Precision::bf16: spec.precision = Precision::bf16; break;
  case llm::Precision::fp8: spec.precision = Precision::fp8; break;
  default:
    throw dgx::sdk::Unsupported("measure mode runs bf16 and fp8 layers; " +
                                std::string(llm::to_string(train.precision)) +
                                " is projected only (--mode project or explore)");
  }
  spec.recompute = train.recompute == llm::Recompute::none        ? Recompute::none
                   : train.recompute == llm::Recompute::selective ? Recompute::selective
                                                                  : Recompute::full;
  return spec;
}

LayerSpec layer_spec_for(const llm::ModelConfig& model, const llm::TrainConfig& train, const llm::FineTune& finetune) {
  LayerSpec spec = layer_spec_for(model, train);
  if (finetune.lora_method()) {
    const llm::LoraConfig& l = finetune.lora;
    spec.lora = Lora{.rank = l.rank,
                     .alpha = l.alpha,
                     .qkv = l.wraps(llm::LoraTarget::qkv),
                     .proj = l.wraps(llm::LoraTarget::proj),
                     .fc1 = l.wraps(llm::LoraTarget::fc1),
                     .fc2 = l.wraps(llm::LoraTarget::fc2)};
  }
  const double span = llm::attention_span(finetune, static_cast<int>(spec.seq_len));
  if (span < double(spec.seq_len) && spec.layout.cp == 1) {
    // The divisor of the sequence whose sample count is nearest to seq_len / span.
    const double wanted = double(spec.seq_len) / span;
    std::int64_t best = 1;
    for (std::int64_t samples = 1; samples <= spec.seq_len; ++samples) {
      if (spec.seq_len % samples == 0 && std::abs(double(samples) - wanted) < std::abs(double(best) - wanted)) {
        best = samples;
      }
    }
    spec.sample_len = spec.seq_len / best;
  }
  return spec;
}

MatchReport apply_measurements(const std::vector<OpTiming>& measured, const llm::OpList& ops,
                               llm::MeasuredOverrides& overrides) {
  MatchReport report;
  std::vector<bool> used(measured.size(), false);
  // Measured seconds of the matched memory-bound ops per pass: where unlisted measured time is folded in.
  std::map<std::string, std::vector<std::pair<std::string, double>>> memory_by_pass;
  std::set<std::string> seen;
  for (const std::vector<llm::Op>* list : {&ops.forward, &ops.backward}) {
    for (const llm::Op& op : *list) {
      if (op.is_communication()) {
        continue;
      }
      const std::string key = op.key();
      if (!seen.insert(key).second) {
        // A recomputed forward op shares its original's key, hence its time: its measured reruns are accounted
        // for, not extra.
        (void)measured_seconds(op, measured, used);
        continue;
      }
      ++report.model_ops;
      const auto seconds = measured_seconds(op, measured, used);
      if (!seconds) {
        report.unmatched_model_ops.push_back(key);
        continue;
      }
      ++report.matched;
      overrides.set(key, *seconds);
      if (is_memory_op(op)) {
        memory_by_pass[std::string(llm::to_string(op.pass))].emplace_back(key, *seconds);
      }
    }
  }
  std::map<std::string, double> extra_by_pass;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (used[i]) {
      continue;
    }
    const OpTiming& m = measured[i];
    extra_by_pass[std::string(to_string(m.pass))] += m.seconds * m.calls;
    report.extra_measured_ops.push_back(m.name + "." + std::string(to_string(m.pass)));
  }
  for (const auto& [pass, extra] : extra_by_pass) {
    auto& targets = memory_by_pass[pass];
    double total = 0;
    for (const auto& [key, seconds] : targets) {
      total += seconds;
    }
    if (total <= 0) {
      continue;  // nothing to fold into: the time stays out, and extra_measured_ops says so
    }
    for (const auto& [key, seconds] : targets) {
      overrides.set(key, seconds + extra * seconds / total);
    }
    report.folded_seconds += extra;
  }
  return report;
}

}  // namespace dgx::llm::kernels
