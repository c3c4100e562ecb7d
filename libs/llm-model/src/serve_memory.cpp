#include "dgx/llm/serve_memory.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/serve_constants.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kBf16 = 2;

using dgx::sdk::text::gib;

/// The largest intermediate tensors one iteration of `tokens` tokens keeps at once on a GPU: the residual stream
/// and normalized input, the QKV output, the attention output, the MLP's first GEMM output and activation (MoE: the
/// routed copies), and the FP32 logits of the sampling rows (at most one per scheduled request) with their gathered
/// copy.
double activation_bytes(const ModelConfig& model, const ServeShape& shape, double tokens, double logit_rows) {
  const ServeLayout& l = shape.layout;
  const double h = static_cast<double>(model.hidden);
  const double mlp_rows = model.moe() ? tokens * model.top_k / l.ep : tokens;
  const double mlp_width = static_cast<double>(model.ffn) / (model.moe() ? l.expert_tp() : l.tp);
  const double per_token = 2 * h + static_cast<double>(model.qkv_width()) / l.tp + h / l.tp;
  const double mlp = mlp_rows * mlp_width * model.mlp_matrices();
  const double logits =
      logit_rows * static_cast<double>(model.vocab) * (1.0 / l.tp + 1.0) * serve_constants::kLogitBytes;
  return tokens * per_token * kBf16 + mlp * kBf16 + logits;
}

}  // namespace

int ServeMemory::max_requests(double tokens) const {
  return tokens > 0 ? static_cast<int>(std::min(1e9, std::floor(kv_tokens() / tokens))) : 0;
}

double serve_weight_bytes(const ModelConfig& model, const ServeShape& shape) {
  const ServeLayout& l = shape.layout;
  const ParameterCount p = count_parameters(model);
  const double wb = gemm_operand_bytes(shape.precision);
  const double router = model.moe() ? static_cast<double>(model.hidden) * model.experts : 0.0;
  const double layer = p.attention_per_layer / l.tp * wb + (p.mlp_per_layer - router) / l.tp * wb +
                       (router + p.norms_per_layer) * serve_constants::kSmallWeightBytes;
  const double stage = rank_shape(model, l).stage_layers * layer;
  const double embedding = p.embedding / l.tp * serve_constants::kEmbeddingBytes;
  const double head = (p.output_layer / l.tp + p.final_norm) * serve_constants::kEmbeddingBytes;
  if (l.pp == 1) {
    // Tied embeddings: the one table serves both ends.
    return stage + embedding + (model.tied_embeddings ? p.final_norm * kBf16 : head);
  }
  return stage + std::max(embedding, model.tied_embeddings ? embedding : head);
}

Expected<ServeMemory> serve_memory(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                   int max_batch_tokens, int max_batch_size, double kv_fraction) {
  ServeMemory m;
  m.capacity = system.hbm_bytes();
  m.weights = serve_weight_bytes(model, shape);
  m.activations = activation_bytes(model, shape, max_batch_tokens, std::min(max_batch_tokens, max_batch_size));
  m.reserve = constants::kReserveGiB * kGiB;
  m.kv_bytes_per_token = kv_bytes_per_token(model, shape);
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
