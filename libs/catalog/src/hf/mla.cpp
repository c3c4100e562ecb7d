// The DeepSeek-V3 family: multi-head latent attention, routed and shared experts after first_k_dense_replace dense
// layers, multi-token prediction, and DeepSeek sparse attention's indexer where the config has one. DeepSeek-V3/R1
// and Kimi K2 (DeepseekV3ForCausalLM), DeepSeek-V3.2 (DeepseekV32ForCausalLM), GLM-5 (GlmMoeDsaForCausalLM), and
// Kimi K2.5, which nests the same fields under text_config beside a vision tower.
#include "architectures.hpp"

namespace dgx::catalog::hf {

void read_deepseek(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  read_sizes(t, root, out);
  ModelConfig& m = out.model;
  m.kv_groups = m.heads;  // the latent expands to one key/value per query head
  m.activation = gated_silu(t);

  m.attention = AttentionKind::mla;
  m.q_lora_rank = t.count("q_lora_rank");  // null or 0: queries without a latent (DeepSeek-V2-Lite)
  m.kv_lora_rank = t.positive("kv_lora_rank");
  m.qk_nope_head_dim = t.positive("qk_nope_head_dim");
  m.qk_rope_head_dim = t.positive("qk_rope_head_dim");
  m.v_head_dim = t.positive("v_head_dim");

  read_experts(t, "n_routed_experts", "num_experts_per_tok", m);
  m.ffn = t.positive("moe_intermediate_size");
  m.shared_experts = t.count("n_shared_experts");  // one MLP of n_shared_experts × moe_intermediate_size
  m.dense_layers = t.count("first_k_dense_replace");
  if (m.dense_layers >= m.layers) {
    t.fail("first_k_dense_replace", "is " + std::to_string(m.dense_layers) + ": it must leave MoE layers of the " +
                                        std::to_string(m.layers) + " (num_hidden_layers)");
  }
  m.dense_ffn = m.dense_layers > 0 ? t.positive("intermediate_size") : 0;
  if (t.count("moe_layer_freq", 1) != 1) {
    t.fail("moe_layer_freq", "is " + std::to_string(t.count("moe_layer_freq")) +
                                 ": only every layer after the dense ones being MoE (1) is read");
  }
  m.mtp_layers = t.count("num_nextn_predict_layers");

  if (t.has("index_topk")) {  // DeepSeek sparse attention: the lightning indexer picks each query's keys
    m.sparse_topk = t.positive("index_topk");
    m.indexer_heads = t.positive("index_n_heads");
    m.indexer_head_dim = t.positive("index_head_dim");
  }
}

void read_kimi_k25(const JsonFields& root, HfModel& out) {
  read_deepseek(root, out);
  out.model.extra_params = vision_parameters(root.object("vision_config"), out.model.hidden, out.notes);
}

}  // namespace dgx::catalog::hf
