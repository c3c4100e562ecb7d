#include "dgx/llm/serve_kv.hpp"

#include "dgx/llm/mixer_work.hpp"
#include "dgx/llm/model_constants.hpp"

#include <algorithm>

namespace dgx::llm {

namespace {

/// DSA's indexer cache per token and layer: its FP8 key (BF16 without FP8) and one FP32 scale.
double indexer_key_bytes(const ModelConfig& layer) {
  return layer.sparse_topk > 0 ? layer.indexer_head_dim + constants::kFp32 : 0.0;
}

/// The tokens an attention layer keeps of a request: its window or its chunk; 0: every token.
double kept_tokens(const ModelConfig& layer) {
  double cap = 0;
  for (const int limit : {layer.sliding_window_layers >= 1 ? layer.sliding_window : 0, layer.attention_chunk}) {
    if (limit > 0) {
      cap = cap > 0 ? std::min(cap, static_cast<double>(limit)) : limit;
    }
  }
  return cap;
}

/// Adds `layers` layers of `view`'s kind to the footprint.
void add_layers(KvFootprint& f, const ModelConfig& view, double layers, const ServeShape& shape) {
  const int tp = std::max(1, shape.layout.attention_tp());
  switch (view.mixer) {
  case Mixer::attention: {
    const double bytes = layers * (rank_shape(view, shape.layout).kv_width * gemm_operand_bytes(shape.kv_precision) +
                                   indexer_key_bytes(view));
    if (const double cap = kept_tokens(view); cap > 0) {
      f.capped.push_back(KvFootprint::Capped{.tokens = cap, .bytes_per_token = bytes});
    } else {
      f.per_token += bytes;
    }
    break;
  }
  case Mixer::mamba2: f.per_sequence += layers * ssd_state_bytes(view.mamba, tp); break;
  case Mixer::linear_attention: f.per_sequence += layers * delta_rule_state_bytes(view.linear_attention, tp); break;
  case Mixer::none: break;
  }
}

}  // namespace

double KvFootprint::bytes(double tokens) const {
  double total = per_token * tokens + per_sequence;
  for (const Capped& c : capped) {
    total += std::min(tokens, c.tokens) * c.bytes_per_token;
  }
  return total;
}

double KvFootprint::read_bytes(double decode_seqs, double decode_kv_tokens) const {
  if (proportional()) {
    return decode_kv_tokens * per_token;
  }
  const double context = decode_seqs > 0 ? decode_kv_tokens / decode_seqs : 0.0;
  double total = decode_kv_tokens * per_token + decode_seqs * per_sequence;
  for (const Capped& c : capped) {
    total += decode_seqs * std::min(context, c.tokens) * c.bytes_per_token;
  }
  return total;
}

bool uniform_kv(const ModelConfig& model) {
  const std::vector<LayerGroup> groups = serve_layer_groups(model);
  const ModelConfig first = serve_view(model, groups.front());
  return !serves_by_group(model) && first.mixer == Mixer::attention && kept_tokens(first) == 0 &&
         first.sparse_topk == 0;
}

KvFootprint kv_footprint(const ModelConfig& model, const ServeShape& shape) {
  if (uniform_kv(model)) {
    KvFootprint f;
    f.per_token = kv_bytes_per_token(model, shape);
    return f;
  }
  const std::vector<LayerGroup> groups = serve_layer_groups(model);
  KvFootprint f;
  for (const LayerGroup& group : groups) {
    add_layers(f, serve_view(model, group), stage_share(model, group, shape.layout.pp), shape);
  }
  // The drafter's KV: MTP and EAGLE one layer of the model's own attention shape, a draft model all of its layers.
  const SpeculativeConfig& sp = shape.speculative;
  const RankShape r = rank_shape(model, shape.layout);
  if (sp.kind == Speculation::mtp || sp.kind == Speculation::eagle) {
    f.per_token += r.kv_width * gemm_operand_bytes(shape.kv_precision);
  } else if (sp.kind == Speculation::draft && sp.draft_model) {
    ServeShape draft = shape;
    draft.speculative = {};
    draft.layout.attention_dp = false;
    const KvFootprint d = kv_footprint(*sp.draft_model, draft);
    f.per_token += d.per_token;
    f.per_sequence += d.per_sequence;
    f.capped.insert(f.capped.end(), d.capped.begin(), d.capped.end());
  }
  return f;
}

}  // namespace dgx::llm
