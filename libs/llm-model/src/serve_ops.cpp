#include "dgx/llm/serve_ops.hpp"

#include "serve_builder.hpp"

#include "dgx/llm/serve_kv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dgx::llm {

namespace {

using detail::kBf16;
using detail::ServeOpsBuilder;

/// Decode attention reads each decoding sequence's KV cache once (its verify positions share the read); when its
/// FLOPs outweigh the bytes (MLA's 128 heads over one latent, long drafts) it runs at the attention kernel's
/// compute rate instead.
void decode_attention(ServeOpsBuilder& b, double kv_width, double kv_bytes, double flops_per_key) {
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double bytes =
      load.decode_kv_tokens * kv_width * kv_bytes + load.decode_seqs * load.verify * r.heads * r.head_dim * 2 * kBf16;
  const double flops = load.decode_kv_tokens * load.verify * r.heads * flops_per_key;
  const SystemProfile& s = b.system();
  const Efficiency& e = s.efficiency;
  const double memory_s = bytes / (s.hbm_bytes_per_s() * e.memory_bw);
  const double compute_s = flops / (s.dense_peak_flops(Precision::bf16) * e.attention_fwd);
  if (compute_s > memory_s && load.decode_seqs > 0) {
    // As flash attention over the decoding sequences: q = their positions, keys = their mean context.
    const double q = load.decode_seqs * load.verify;
    b.attention(q, load.decode_kv_tokens / load.decode_seqs, flops_per_key / 4, 1);
    return;
  }
  b.memory("decode_attention", bytes, 2);
}

/// DSA's lightning indexer (DeepSeek-V3.2; vLLM's and SGLang's DeepseekV32 indexer): its projections, its FP8 key
/// appended to its own cache (the key and an FP32 scale per token), the FP8 scores of every query against every
/// earlier key (a prompt: one kernel over the chunk; decoding: reading each sequence's whole indexer cache) and the
/// top-k selection over the logits.
void serve_indexer(ServeOpsBuilder& b) {
  const ModelConfig& m = b.model_;
  if (m.sparse_topk <= 0) {
    return;
  }
  const StepLoad& load = b.whole_;  // every earlier key, whatever the top-k keeps
  const double t = b.tokens();
  const double heads = m.indexer_heads;
  const double dim = m.indexer_head_dim;
  const Precision scores = b.system().supports(Precision::fp8) ? Precision::fp8 : Precision::bf16;
  const double key_bytes = dim * gemm_operand_bytes(scores) + constants::kFp32;
  b.gemm("indexer_q", t, heads * dim, m.mla() && m.q_lora_rank > 0 ? m.q_lora_rank : b.hidden(), Precision::bf16);
  b.gemm("indexer_k", t, dim + heads, b.hidden(), Precision::bf16);
  b.memory("indexer_k_append", t * key_bytes);
  if (load.prefill_tokens > 0) {
    const double keys = load.prefill_pairs / load.prefill_tokens;
    b.gemm("indexer_scores", load.prefill_tokens, keys, heads * dim, scores);
    b.memory("indexer_topk",
             load.prefill_pairs * 2 * constants::kFp32 + load.prefill_tokens * m.sparse_topk * constants::kFp32);
  }
  // Decoding: read the whole indexer cache of every sequence, write and read one logit per key, pick the top-k.
  b.memory("indexer_decode", load.decode_kv_tokens * (key_bytes + 2 * load.verify * constants::kFp32), 2);
}

void gqa_attention(ServeOpsBuilder& b, double kv_bytes) {
  const ModelConfig& m = b.model_;
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double t = b.tokens();
  const double q_width = r.heads * r.head_dim;
  const double kv_width = r.kv_heads * r.head_dim;
  const double gate = m.attention_output_gate ? q_width : 0.0;  // the query projection's gate half
  b.gemm("qkv", t, static_cast<double>(m.qkv_width()) / b.tp() + gate, b.hidden(), b.format());
  // Rotary embedding of q and k fused with the KV cache append: read the QKV output, write q, write k and v into
  // the cache in its format.
  b.memory("rope_kv_append", t * ((q_width + 2 * kv_width) * kBf16 + q_width * kBf16 + 2 * kv_width * kv_bytes));
  serve_indexer(b);
  if (load.prefill_tokens > 0) {
    b.attention(load.prefill_tokens, load.prefill_pairs / load.prefill_tokens, r.head_dim, r.kv_heads);
  }
  // Decode attention streams every decoding sequence's K and V (split over the sequence, then combined).
  decode_attention(b, 2 * kv_width, kv_bytes, 4 * r.head_dim);
  if (m.attention_output_gate) {
    // sigmoid(gate) times the attention output: read both, write the product.
    b.memory("output_gate", t * q_width * 3 * kBf16);
  }
  if (b.format().compute != Precision::bf16) {
    b.memory("cast_proj_input", t * q_width * (kBf16 + b.format().input_bytes()));
  }
  b.gemm("proj", t, b.hidden(), q_width, b.format());
}

/// DeepSeek's multi-head latent attention as TensorRT-LLM runs it: the fused down-projection of queries and keys /
/// values to their latents (replicated on every TP rank), their norms, the query up-projection; prompt chunks
/// expand the latent to per-head keys and values for flash attention; decoding absorbs the up-projections into the
/// query and output (attention over the latent of kv_lora_rank + the rotary key: one KV "head" shared by all).
void mla_attention(ServeOpsBuilder& b, double kv_bytes) {
  const ModelConfig& m = b.model_;
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double t = b.tokens();
  const double h = b.hidden();
  const double latent = m.kv_lora_rank;
  const double rope = m.qk_rope_head_dim;
  const double nope = m.qk_nope_head_dim;
  const double v = m.v_head_dim;
  const double q_lora = m.q_lora_rank;
  const GemmFormat& p = b.format();
  b.gemm("mla_fused_a", t, q_lora + latent + rope, h, p);
  b.memory("mla_latent_norms", t * (q_lora + latent) * 2 * kBf16, 2);
  b.gemm("q_b", t, r.heads * (nope + rope), q_lora > 0 ? q_lora : h, p);
  b.memory("rope_kv_append", t * (latent + rope) * (kBf16 + kv_bytes) + t * r.heads * rope * 2 * kBf16);
  serve_indexer(b);
  if (load.prefill_tokens > 0) {
    b.gemm("kv_b", load.prefill_tokens, r.heads * (nope + v), latent, p);
    b.attention(load.prefill_tokens, load.prefill_pairs / load.prefill_tokens, nope + rope, r.heads);
  }
  const double decode_rows = load.decode_seqs * load.verify;
  b.gemm("mla_absorb_q", decode_rows, latent, nope, Precision::bf16, r.heads);
  // Scores over latent + rope dimensions and values over the latent: 2·(2·latent + rope) FLOPs per key and head.
  decode_attention(b, latent + rope, kv_bytes, 2 * (2 * latent + rope));
  b.gemm("mla_absorb_v", decode_rows, v, latent, Precision::bf16, r.heads);
  b.gemm("proj", t, h, r.heads * v, p);
}

void serve_dense_mlp(ServeOpsBuilder& b, double ffn, double split) {
  const double t = b.tokens();
  const double width = ffn / split;
  b.gemm("fc1", t, width * (b.model_.mlp_matrices() - 1), b.hidden(), b.format());
  b.activation(t, width, b.format());
  b.gemm("fc2", t, b.hidden(), width, b.format());
}

/// Routed experts: the router on every token (BF16), the routed copies gathered per local expert, grouped expert
/// GEMMs over the experts that receive tokens (balanced routing: with T tokens an expert is hit with probability
/// 1 − (1 − k/E)^T, so small decode batches read fewer experts' weights), the weighted sum back, and the shared
/// experts. With attention DP each rank's tokens travel to the experts' ranks and back (dispatch in the GEMMs'
/// input format, combine in BF16).
void serve_moe_mlp(ServeOpsBuilder& b) {
  const ModelConfig& m = b.model_;
  const ServeLayout& l = b.shape_.layout;
  const double local = b.tokens();
  const double all = b.load_.tokens();
  const double h = b.hidden();
  const double experts = m.experts;
  const double local_experts = experts / l.ep;
  const double hit = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / experts, std::max(1.0, all));
  const double active = std::max(1.0, std::ceil(local_experts * hit - 1e-9));
  const double copies = all * m.top_k / l.ep;  // routed token copies this rank's experts process
  const double width = static_cast<double>(m.ffn) / l.expert_tp();
  const GemmFormat& f = b.format(true);
  b.gemm("router", local, experts, h, Precision::bf16);
  if (l.attention_dp) {
    b.all_to_all("ep_dispatch", local * m.top_k * h * f.input_bytes());
  }
  b.memory("permute", copies * h * 2 * f.input_bytes());
  b.gemm("expert_fc1", copies / active, width * (m.mlp_matrices() - 1), h, f, active);
  b.activation(copies, width, f);
  b.gemm("expert_fc2", copies / active, h, width, f, active);
  b.memory("unpermute", copies * h * kBf16 + local * h * kBf16);
  if (l.attention_dp) {
    b.all_to_all("ep_combine", local * m.top_k * h * kBf16);
  }
  if (m.shared_experts > 0) {
    serve_dense_mlp(b, static_cast<double>(m.ffn) * m.shared_experts, b.tp());
  }
}

}  // namespace

ServeShape serve_shape(const ServeConfig& config) {
  return ServeShape{.layout = config.layout,
                    .precision = config.precision,
                    .kv_precision = config.kv_precision,
                    .speculative = config.speculative,
                    .graph_max_batch = config.cuda_graph_max_batch()};
}

StepLoad StepLoad::split(int parts) const {
  const double p = std::max(1, parts);
  return StepLoad{.decode_seqs = decode_seqs / p,
                  .decode_kv_tokens = decode_kv_tokens / p,
                  .prefill_tokens = prefill_tokens / p,
                  .prefill_pairs = prefill_pairs / p,
                  .logit_rows = logit_rows / p,
                  .verify = verify};
}

RankShape rank_shape(const ModelConfig& model, const ServeLayout& layout) {
  const int tp = std::max(1, layout.attention_tp());
  const int pp = std::max(1, layout.pp);
  RankShape r{.heads = static_cast<double>(model.heads) / tp,
              .kv_heads = model.kv_groups >= tp ? static_cast<double>(model.kv_groups) / tp : 1.0,
              .head_dim = static_cast<double>(model.head_dim()),
              .stage_layers = (model.layers + pp - 1) / pp};
  r.moe_layers = model.layers > 0 ? r.stage_layers * static_cast<double>(model.moe_layers()) / model.layers : 0;
  r.kv_width =
      model.mla() ? static_cast<double>(model.kv_lora_rank + model.qk_rope_head_dim) : 2.0 * r.kv_heads * r.head_dim;
  return r;
}

double kv_bytes_per_token(const ModelConfig& model, const ServeShape& shape) {
  if (!uniform_kv(model)) {
    return kv_footprint(model, shape).per_token;
  }
  const RankShape r = rank_shape(model, shape.layout);
  const double bytes = gemm_operand_bytes(shape.kv_precision);
  double draft_layers_width = 0;
  const SpeculativeConfig& sp = shape.speculative;
  if (sp.kind == Speculation::mtp || sp.kind == Speculation::eagle) {
    draft_layers_width = r.kv_width;  // one layer of the model's own shape
  } else if (sp.kind == Speculation::draft && sp.draft_model) {
    ServeShape draft_shape{
        .layout = shape.layout, .precision = shape.precision, .kv_precision = shape.kv_precision, .speculative = {}};
    draft_shape.layout.attention_dp = false;
    return r.stage_layers * r.kv_width * bytes + kv_bytes_per_token(*sp.draft_model, draft_shape);
  }
  return (r.stage_layers * r.kv_width + draft_layers_width) * bytes;
}

std::vector<LayerGroup> serve_layer_groups(const ModelConfig& model) {
  std::vector<LayerGroup> groups = model.layer_mix();
  const double share = model.sliding_window_layers;
  if (model.grouped() || model.sliding_window <= 0 || share <= 0 || share >= 1) {
    return groups;
  }
  LayerGroup windowed = groups.front();
  windowed.count = std::clamp(static_cast<int>(std::lround(share * model.layers)), 0, model.layers);
  windowed.window = model.sliding_window;
  groups.front().count -= windowed.count;
  groups.push_back(windowed);
  std::erase_if(groups, [](const LayerGroup& g) { return g.count <= 0; });
  return groups;
}

bool serves_by_group(const ModelConfig& model) { return model.grouped() || serve_layer_groups(model).size() > 1; }

ModelConfig serve_view(const ModelConfig& model, const LayerGroup& group) {
  if (model.grouped()) {
    return model.layer_view(group);
  }
  ModelConfig view = model;
  view.layers = group.count;
  view.sliding_window = group.window;
  view.sliding_window_layers = group.window > 0 ? 1.0 : 0.0;
  return view;
}

double stage_share(const ModelConfig& model, const LayerGroup& group, int pp) {
  const int stages = std::max(1, pp);
  const int stage_layers = (model.layers + stages - 1) / stages;  // ceil(layers / pp), as rank_shape's
  return model.layers > 0 ? static_cast<double>(stage_layers) * group.count / model.layers : 0.0;
}

StepLoad attended(const ModelConfig& layer, const StepLoad& load) {
  const bool limited = (layer.sliding_window > 0 && layer.sliding_window_layers >= 1) || layer.attention_chunk > 0 ||
                       layer.sparse_topk > 0;
  if (!limited || layer.mixer != Mixer::attention) {
    return load;
  }
  StepLoad seen = load;
  if (load.decode_seqs > 0) {
    seen.decode_kv_tokens = load.decode_seqs * decode_keys(layer, load.decode_kv_tokens / load.decode_seqs);
  }
  if (load.prefill_tokens > 0) {
    seen.prefill_pairs = load.prefill_tokens * prefill_keys(layer, load.prefill_pairs / load.prefill_tokens);
  }
  return seen;
}

std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                const StepLoad& load) {
  return serve_layer_ops(model, system, shape, load, model.moe() ? LayerKind::moe : LayerKind::dense);
}

std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                const StepLoad& load, LayerKind kind) {
  ServeOpsBuilder b(model, system, shape, load);
  const double kv_bytes = gemm_operand_bytes(shape.kv_precision);
  if (model.mixer != Mixer::none) {
    const bool attention = model.mixer == Mixer::attention;
    b.add_norm(attention ? "norm_attn" : "norm_mixer", b.tokens(), b.format());
    switch (model.mixer) {
    case Mixer::attention: model.mla() ? mla_attention(b, kv_bytes) : gqa_attention(b, kv_bytes); break;
    case Mixer::mamba2: detail::serve_mamba(b); break;
    case Mixer::linear_attention: detail::serve_linear_attention(b); break;
    case Mixer::none: break;
    }
    b.all_reduce(attention ? "tp_all_reduce_attn" : "tp_all_reduce_mixer", b.tokens() * b.hidden() * kBf16);
  }
  if (model.mlp_free) {
    return b.take();
  }
  const bool moe = kind == LayerKind::moe && model.moe();
  b.add_norm("norm_mlp", b.tokens(), b.format(moe));
  if (moe) {
    serve_moe_mlp(b);
  } else {
    serve_dense_mlp(b, static_cast<double>(model.moe() ? model.dense_mlp_ffn() : model.ffn), b.tp());
  }
  b.all_reduce("tp_all_reduce_mlp", b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_first_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                      const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  // TensorRT-LLM splits the embedding table over TP along the hidden dimension and all-gathers the rows.
  b.memory("embedding", b.tokens() * b.hidden() / b.tp() * 2 * kBf16);
  b.collective("tp_all_gather_embedding", CommGroup::tp, Collective::all_gather, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_last_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                     const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  const double rows = b.local_.logit_rows;
  const double vocab = static_cast<double>(model.vocab);
  b.memory("final_norm", rows * b.hidden() * 2 * kBf16);
  b.gemm("lm_head", rows, vocab / b.tp(), b.hidden(), Precision::bf16);
  b.collective("tp_all_gather_logits", CommGroup::tp, Collective::all_gather,
               rows * vocab * serve_constants::kLogitBytes);
  b.memory("sampling", rows * vocab * serve_constants::kSamplingBytesPerLogit);
  return b.take();
}

std::vector<Op> serve_handoff_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                  const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  b.collective("pp_send", CommGroup::pp, Collective::send_recv, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

}  // namespace dgx::llm
