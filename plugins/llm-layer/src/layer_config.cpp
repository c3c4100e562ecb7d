#include "layer_config.hpp"

#include "dgx/llm/kernels/metrics.hpp"

#include <stdexcept>

namespace dgx::plugins::llm_layer {

using llm::kernels::LayerSpec;
using sdk::Param;

namespace {

template <typename T, typename Parse> T parse_choice(const sdk::Host& host, const std::string& key, Parse parse) {
  const std::string text = host.get_string(key);
  const auto value = parse(text);
  if (!value) {
    throw sdk::InvalidArgument(key + ": unknown value '" + text + "'");
  }
  return *value;
}

int get_int_in(const sdk::Host& host, const std::string& key, std::int64_t low, std::int64_t high) {
  const std::int64_t value = host.get_int(key);
  if (value < low || value > high) {
    throw sdk::InvalidArgument(key + " must be in " + std::to_string(low) + ".." + std::to_string(high) + ", got " +
                               std::to_string(value));
  }
  return static_cast<int>(value);
}

}  // namespace

LayerSpec LayerConfig::case_spec(std::size_t index) const {
  LayerSpec s = spec;
  s.precision = precisions.at(index);
  return s;
}

std::vector<Param> layer_params() {
  return {
      Param::string("model", "llama3.1-70b", "model name (a label; the layer.* keys give the architecture)"),
      Param::integer("layer.hidden", 8192, "hidden size h"),
      Param::integer("layer.ffn", 28672, "MLP inner size (per expert for MoE)"),
      Param::integer("layer.heads", 64, "attention (query) heads"),
      Param::integer("layer.kv_groups", 8, "key/value heads (= heads: multi-head attention)"),
      Param::integer("layer.head_dim", 0, "head dimension; 0: hidden / heads"),
      Param::integer("layer.seq_len", 8192, "sequence length", "tokens"),
      Param::string("layer.activation", "swiglu", "MLP activation", "swiglu|gelu|squared_relu"),
      Param::string("layer.norm", "rmsnorm", "normalization", "rmsnorm|layernorm"),
      Param::boolean("layer.rope", true, "rotary position embedding"),
      Param::floating("layer.rope_theta", 500000.0, "rotary base θ"),
      Param::integer("layer.experts", 0, "MoE experts (0 or 1: dense MLP)"),
      Param::integer("layer.top_k", 0, "MoE experts per token"),
      Param::integer("layer.vocab", 0,
                     "vocabulary: > 0 also times the first and last stages' ops (embedding, LM head, loss)"),
      Param::integer("parallel.tp", 1, "tensor parallel size (heads and MLP split; sequence parallel)"),
      Param::integer("parallel.cp", 1, "context parallel size (sequence split, ring attention)"),
      Param::integer("parallel.ep", 1, "expert parallel size"),
      Param::integer("train.mbs", 1, "micro-batch size", "sequences"),
      Param::string("train.recompute", "none", "activation recompute", "none|selective|full"),
      Param::string_list("precision", {"bf16"}, "GEMM precisions to measure, one case each", "bf16|fp8"),
      Param::string("fp8.scaling", "delayed", "FP8 per-tensor scaling", "delayed|current"),
      Param::integer("fp8.amax_history", 16, "delayed scaling: amax history length", "steps"),
      Param::integer("layer.profile_repeats", 5, "steps timed op by op for the per-op rows (medians)"),
      Param::integer("layer.gemm_candidates", 8, "cuBLASLt heuristic algorithms timed per GEMM at setup"),
      Param::integer("layer.seed", 1, "seed of the random weights and inputs"),
      llm::kernels::peak_param("peak.bf16", llm::kernels::Precision::bf16),
      llm::kernels::peak_param("peak.fp8", llm::kernels::Precision::fp8),
  };
}

LayerConfig read_layer_config(const sdk::Host& host) {
  LayerConfig c;
  c.model = host.get_string("model");
  llm::kernels::Architecture& a = c.spec.arch;
  a.hidden = host.get_int("layer.hidden");
  a.ffn = host.get_int("layer.ffn");
  a.heads = host.get_int("layer.heads");
  a.kv_groups = host.get_int("layer.kv_groups");
  a.head_dim = host.get_int("layer.head_dim");
  a.activation = parse_choice<llm::kernels::Activation>(host, "layer.activation", llm::kernels::parse_activation);
  a.norm = parse_choice<llm::kernels::Norm>(host, "layer.norm", llm::kernels::parse_norm);
  a.rope = host.get_bool("layer.rope");
  a.rope_theta = host.get_float("layer.rope_theta");
  a.experts = host.get_int("layer.experts");
  a.top_k = host.get_int("layer.top_k");
  a.vocab = host.get_int("layer.vocab");
  c.spec.layout.tp = get_int_in(host, "parallel.tp", 1, 1024);
  c.spec.layout.cp = get_int_in(host, "parallel.cp", 1, 1024);
  c.spec.layout.ep = get_int_in(host, "parallel.ep", 1, 1024);
  c.spec.seq_len = host.get_int("layer.seq_len");
  c.spec.micro_batch = host.get_int("train.mbs");
  c.spec.recompute = parse_choice<llm::kernels::Recompute>(host, "train.recompute", llm::kernels::parse_recompute);
  c.spec.scaling = parse_choice<llm::kernels::Fp8Scaling>(host, "fp8.scaling", llm::kernels::parse_fp8_scaling);
  c.spec.amax_history = get_int_in(host, "fp8.amax_history", 1, 1024);
  for (const std::string& name : host.get_string_list("precision")) {
    const auto precision = llm::kernels::parse_precision(name);
    if (!precision) {
      throw sdk::InvalidArgument("precision: unknown value '" + name + "' (bf16, fp8)");
    }
    c.precisions.push_back(*precision);
  }
  if (c.precisions.empty()) {
    throw sdk::InvalidArgument("precision is empty: give bf16, fp8 or both");
  }
  c.profile_repeats = get_int_in(host, "layer.profile_repeats", 1, 1000);
  c.stage_ops = a.vocab > 0;
  if (c.stage_ops && a.vocab % c.spec.layout.tp != 0) {
    throw sdk::InvalidArgument("layer.vocab (" + std::to_string(a.vocab) + ") must be a multiple of parallel.tp");
  }
  c.gemm_candidates = get_int_in(host, "layer.gemm_candidates", 1, 64);
  c.seed = static_cast<std::uint64_t>(host.get_int("layer.seed"));
  c.peak_bf16 = host.get_float("peak.bf16");
  c.peak_fp8 = host.get_float("peak.fp8");
  if (c.peak_bf16 < 0 || c.peak_fp8 < 0) {
    throw sdk::InvalidArgument("peak.bf16 and peak.fp8 must be >= 0");
  }
  for (std::size_t i = 0; i < c.precisions.size(); ++i) {
    try {
      llm::kernels::validate(c.case_spec(i));
    } catch (const std::invalid_argument& e) {
      throw sdk::InvalidArgument(e.what());
    }
  }
  c.spec.precision = c.precisions.front();
  return c;
}

std::vector<sdk::PresetSpec> layer_presets() {
  const auto preset = [](std::string name, std::string summary, std::string toml) {
    return sdk::PresetSpec{std::move(name), "llm-layer", std::move(summary), std::move(toml)};
  };
  return {
      preset("llama3.1-8b-layer", "One Llama 3.1 8B layer (h4096 ffn14336 heads32 kv8), TP1, seq 8192, MBS 1",
             "model = \"llama3.1-8b\"\nlayer.hidden = 4096\nlayer.ffn = 14336\nlayer.heads = 32\n"
             "layer.kv_groups = 8\nlayer.seq_len = 8192\nlayer.vocab = 128256\n"),
      preset("llama3.1-70b-layer", "One Llama 3.1 70B layer (h8192 ffn28672 heads64 kv8), TP1, seq 8192, MBS 1",
             "model = \"llama3.1-70b\"\nlayer.hidden = 8192\nlayer.ffn = 28672\nlayer.heads = 64\n"
             "layer.kv_groups = 8\nlayer.seq_len = 8192\nlayer.vocab = 128256\n"),
      preset("mixtral-8x7b-layer", "One Mixtral 8x7B layer (8 experts, top-2), TP1, EP1, seq 4096, MBS 1",
             "model = \"mixtral-8x7b\"\nlayer.hidden = 4096\nlayer.ffn = 14336\nlayer.heads = 32\n"
             "layer.kv_groups = 8\nlayer.seq_len = 4096\nlayer.experts = 8\nlayer.top_k = 2\n"
             "layer.rope_theta = 1000000.0\nlayer.vocab = 32000\n"),
  };
}

}  // namespace dgx::plugins::llm_layer
