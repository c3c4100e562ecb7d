#include "dgx/llm/serve_memory.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_precision.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kGiB;

using dgx::sdk::text::gib;

/// The widest output of a layer's mixer per token: attention's QKV (and its gate), the input projection of Mamba-2
/// (z, x, B, C, dt) or of Gated DeltaNet (q, k, v, z, β, a); none without a mixer.
double mixer_width(const ModelConfig& layer) {
  switch (layer.mixer) {
  case Mixer::attention:
    return static_cast<double>(layer.qkv_width()) +
           (layer.attention_output_gate ? static_cast<double>(layer.q_width()) : 0.0);
  case Mixer::mamba2: {
    const Mamba2Sizes& m = layer.mamba;
    return 2.0 * m.heads * m.head_dim + 2.0 * m.groups * m.state + m.heads;
  }
  case Mixer::linear_attention: {
    const LinearAttentionSizes& la = layer.linear_attention;
    return 2.0 * la.key_heads * la.key_head_dim + 2.0 * la.value_heads * la.value_head_dim + 2.0 * la.value_heads;
  }
  case Mixer::none: break;
  }
  return 0;
}

/// The largest intermediate tensors one iteration of `tokens` tokens keeps at once on a GPU in a layer of `model`'s
/// kind: the residual stream and normalized input, the mixer's widest output (the QKV output), its output (the
/// attention output), the MLP's first GEMM output and activation (MoE: the routed copies), and the FP32 logits of the
/// sampling rows (at most one per scheduled request) with their gathered copy.
double layer_activation_bytes(const ModelConfig& model, const ServeShape& shape, double tokens, double logit_rows) {
  const ServeLayout& l = shape.layout;
  const double h = static_cast<double>(model.hidden);
  const double at = l.attention_tp();
  const double local = tokens / l.attention_dp_ranks();
  const double mlp_rows = model.moe() ? tokens * model.top_k / l.ep : local;
  const double mlp_width = static_cast<double>(model.ffn) / (model.moe() ? l.expert_tp() : at);
  const double per_token = 2 * h + mixer_width(model) / at + h / at;
  const double mlp = model.mlp_free ? 0.0 : mlp_rows * mlp_width * model.mlp_matrices();
  const double logits = logit_rows / l.attention_dp_ranks() * static_cast<double>(model.vocab) * (1.0 / at + 1.0) *
                        serve_constants::kLogitBytes;
  return local * per_token * kBf16 + mlp * kBf16 + logits;
}

/// The workspace of an iteration: the largest of the layer kinds a model is served by.
double activation_bytes(const ModelConfig& model, const ServeShape& shape, double tokens, double logit_rows) {
  double most = 0;
  for (const LayerGroup& group : serve_layer_groups(model)) {
    most = std::max(most, layer_activation_bytes(serve_view(model, group), shape, tokens, logit_rows));
  }
  return most;
}

/// Weight bytes of one decoder layer on one GPU: attention split over the attention TP (whole with attention DP),
/// a dense layer's MLP likewise, a MoE layer's routed experts over all the replica's GPUs (experts / EP, each
/// sliced TP / EP ways) with its shared experts as the attention, the router, norms in BF16.
double layer_weight_bytes(const ModelConfig& model, const ServeShape& shape, const ParameterCount& p, bool moe) {
  const ServeLayout& l = shape.layout;
  const double wb = serve_weight_element_bytes(model, shape.precision, false);
  const double expert_wb = serve_weight_element_bytes(model, shape.precision, true);
  const double at = l.attention_tp();
  const double small = p.norms_per_layer * serve_constants::kSmallWeightBytes;
  const double attention = p.attention_per_layer / at * wb;
  if (!moe) {
    const double mlp = model.moe() ? p.dense_mlp_per_layer : p.mlp_per_layer;
    return attention + mlp / at * wb + small;
  }
  const double router = static_cast<double>(model.hidden) * model.experts;
  const double expert = (p.mlp_per_layer - router) / (model.experts + model.shared_experts);
  const double routed = expert * model.experts / l.tp;
  const double shared = expert * model.shared_experts / at;
  // (One product where the experts' format is the others', as it is unless a checkpoint quantizes experts alone.)
  const double experts = expert_wb == wb ? (routed + shared) * wb : routed * expert_wb + shared * wb;
  return attention + experts + (router * serve_constants::kSmallWeightBytes) + small;
}

}  // namespace

int ServeMemory::max_requests(double tokens) const {
  if (kv.proportional()) {
    if (tokens <= 0 || kv_bytes_per_token <= 0) {
      return 0;
    }
    const double per_rank = std::floor(kv_cache / kv_bytes_per_token / tokens);
    return static_cast<int>(std::min(1e9, per_rank * kv_replicas));
  }
  const double request = kv.bytes(tokens);
  return request > 0 ? static_cast<int>(std::min(1e9, std::floor(kv_cache / request) * kv_replicas)) : 0;
}

double ServeMemory::kv_tokens(double request_tokens) const {
  if (kv.proportional()) {
    return kv_tokens();
  }
  const double request = kv.bytes(request_tokens);
  return request > 0 ? kv_replicas * kv_cache / request * request_tokens : 0;
}

namespace {

/// The decoder layers' weights on one GPU of the fullest stage.
double stage_weight_bytes(const ModelConfig& model, const ServeShape& shape) {
  if (serves_by_group(model)) {
    double stage = 0;
    for (const LayerGroup& group : serve_layer_groups(model)) {
      const ModelConfig view = serve_view(model, group);
      stage += stage_share(model, group, shape.layout.pp) *
               layer_weight_bytes(view, shape, count_parameters(view), view.moe());
    }
    return stage;
  }
  const ParameterCount p = count_parameters(model);
  const RankShape r = rank_shape(model, shape.layout);
  return r.moe_layers * layer_weight_bytes(model, shape, p, true) +
         (r.stage_layers - r.moe_layers) * layer_weight_bytes(model, shape, p, false);
}

}  // namespace

double serve_weight_bytes(const ModelConfig& model, const ServeShape& shape) {
  const ServeLayout& l = shape.layout;
  const ParameterCount p = count_parameters(model);
  const double stage = stage_weight_bytes(model, shape);
  const double at = l.attention_tp();
  const double embedding = p.embedding / at * serve_constants::kEmbeddingBytes;
  const double head = (p.output_layer / at + p.final_norm) * serve_constants::kEmbeddingBytes;
  double drafter = 0;
  const SpeculativeConfig& sp = shape.speculative;
  if (sp.kind == Speculation::mtp) {
    // DeepSeek's MTP module: one layer and its 2h → h projection; embedding and head are the model's.
    drafter = layer_weight_bytes(model, shape, p, model.moe()) +
              2.0 * static_cast<double>(model.hidden * model.hidden) * kBf16 / at;
  } else if (sp.kind == Speculation::eagle) {
    drafter = layer_weight_bytes(model, shape, p, false) + head;  // EAGLE-3: a layer and its own head
  } else if (sp.kind == Speculation::draft && sp.draft_model) {
    ServeShape draft{.layout = {.tp = l.attention_tp()},
                     .precision = shape.precision,
                     .kv_precision = shape.kv_precision,
                     .speculative = {}};
    drafter = serve_weight_bytes(*sp.draft_model, draft);
  }
  if (l.pp == 1) {
    // Tied embeddings: the one table serves both ends.
    return stage + embedding + (model.tied_embeddings ? p.final_norm * kBf16 : head) + drafter;
  }
  return stage + std::max(embedding, model.tied_embeddings ? embedding : head) + drafter;
}

Expected<ServeMemory> serve_memory(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                   int max_batch_tokens, int max_batch_size, double kv_fraction) {
  ServeMemory m;
  m.capacity = system.hbm_bytes();
  m.weights = serve_weight_bytes(model, shape);
  m.activations = activation_bytes(model, shape, max_batch_tokens, std::min(max_batch_tokens, max_batch_size));
  m.reserve = constants::kReserveGiB * kGiB;
  m.kv = kv_footprint(model, shape);
  m.kv_bytes_per_token = m.kv.per_token;
  m.kv_replicas = shape.layout.attention_dp_ranks();
  const std::string where = std::string(to_string(shape.precision)) + " at " + layout_label(shape.layout, model.moe());
  if (m.weights > m.capacity) {
    return Error{model.name + " in " + where + " needs " + gib(m.weights) + " of weights per GPU; " + system.name +
                 " has " + gib(m.capacity) + " (more TP or PP, or a narrower precision, spreads them)"};
  }
  const double free = m.capacity - m.weights - m.activations - m.reserve;
  if (free <= 0) {
    return Error{"no memory left for a KV cache: " + model.name + " in " + where + " needs weights " + gib(m.weights) +
                 " + activations " + gib(m.activations) + " + reserve " + gib(m.reserve) + " of " + gib(m.capacity) +
                 " per GPU on " + system.name};
  }
  m.kv_cache = kv_fraction * free;
  return m;
}

}  // namespace dgx::llm
