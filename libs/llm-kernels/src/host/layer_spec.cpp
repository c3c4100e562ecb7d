#include "dgx/llm/kernels/layer_spec.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace dgx::llm::kernels {

namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> parse_enum(std::string_view text, const std::pair<Enum, std::string_view> (&names)[N]) {
  for (const auto& [value, name] : names) {
    if (name == text) {
      return value;
    }
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string_view enum_name(Enum value, const std::pair<Enum, std::string_view> (&names)[N]) {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) {
      return name;
    }
  }
  return "?";
}

constexpr std::pair<Activation, std::string_view> kActivations[] = {
    {Activation::swiglu, "swiglu"}, {Activation::gelu, "gelu"}, {Activation::squared_relu, "squared_relu"}};
constexpr std::pair<Norm, std::string_view> kNorms[] = {{Norm::rmsnorm, "rmsnorm"}, {Norm::layernorm, "layernorm"}};
constexpr std::pair<Precision, std::string_view> kPrecisions[] = {{Precision::bf16, "bf16"}, {Precision::fp8, "fp8"}};
constexpr std::pair<Fp8Scaling, std::string_view> kScalings[] = {{Fp8Scaling::current, "current"},
                                                                 {Fp8Scaling::delayed, "delayed"}};
constexpr std::pair<Recompute, std::string_view> kRecomputes[] = {
    {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}};

void require(bool condition, const std::string& message) {
  if (!condition) {
    throw std::invalid_argument(message);
  }
}

std::string str(std::int64_t value) { return std::to_string(value); }

void validate_architecture(const Architecture& a) {
  require(a.hidden > 0 && a.ffn > 0 && a.heads > 0 && a.kv_groups > 0,
          "layer: hidden, ffn, heads and kv_groups must be positive (got hidden=" + str(a.hidden) +
              " ffn=" + str(a.ffn) + " heads=" + str(a.heads) + " kv_groups=" + str(a.kv_groups) + ")");
  require(a.heads % a.kv_groups == 0,
          "layer: heads (" + str(a.heads) + ") must be a multiple of kv_groups (" + str(a.kv_groups) + ")");
  require(a.head_dim > 0 || a.hidden % a.heads == 0, "layer: hidden (" + str(a.hidden) +
                                                         ") must be a multiple of heads (" + str(a.heads) +
                                                         ") unless head_dim is given");
  // 16-byte vectors of BF16 in the memory-bound kernels and cuDNN's head-dimension requirement.
  require(a.hidden % 8 == 0, "layer: hidden (" + str(a.hidden) + ") must be a multiple of 8");
  require(a.dim() % 8 == 0 && a.dim() <= 256,
          "layer: head_dim (" + str(a.dim()) + ") must be a multiple of 8 and at most 256 (cuDNN flash attention)");
  require(a.rope_theta > 0, "layer: rope_theta must be positive");
  if (a.moe()) {
    require(a.top_k >= 1 && a.top_k <= a.experts,
            "layer: top_k (" + str(a.top_k) + ") must be in 1.." + str(a.experts) + " (the number of experts)");
  }
  require(a.vocab >= 0, "layer: vocab must not be negative");
}

void validate_layout(const LayerSpec& s) {
  const Architecture& a = s.arch;
  const Layout& l = s.layout;
  require(l.tp >= 1 && l.cp >= 1 && l.ep >= 1, "layout: tp, cp and ep must be at least 1");
  require(a.heads % l.tp == 0, "layout: heads (" + str(a.heads) + ") must be a multiple of tp (" + str(l.tp) + ")");
  require(a.kv_groups % l.tp == 0 || l.tp % a.kv_groups == 0,
          "layout: kv_groups (" + str(a.kv_groups) + ") and tp (" + str(l.tp) + ") must divide one another");
  require(a.ffn % l.tp == 0, "layout: ffn (" + str(a.ffn) + ") must be a multiple of tp (" + str(l.tp) + ")");
  require(s.seq_len > 0 && s.micro_batch >= 1, "layer: seq_len and micro_batch must be positive");
  // Load-balanced CP gives each rank two chunks of seq_len / (2 cp).
  const std::int64_t chunks = l.cp > 1 ? 2 * l.cp : 1;
  require(s.seq_len % chunks == 0,
          "layout: seq_len (" + str(s.seq_len) + ") must be a multiple of " + str(chunks) + " for cp=" + str(l.cp));
  const std::int64_t tokens = s.micro_batch * s.seq_len / l.cp;
  require(tokens % l.tp == 0,
          "layout: tokens per rank (" + str(tokens) + ") must be a multiple of tp (sequence parallelism)");
  if (a.moe()) {
    require(a.experts % l.ep == 0,
            "layout: experts (" + str(a.experts) + ") must be a multiple of ep (" + str(l.ep) + ")");
    require(tokens * a.top_k * l.ep % a.experts == 0,
            "layout: tokens · top_k · ep must be a multiple of experts for balanced routing");
  } else {
    require(l.ep == 1, "layout: ep > 1 needs a MoE layer (experts > 1)");
  }
}

void validate_lora(const LayerSpec& s) {
  const Lora& lora = s.lora;
  if (!lora.enabled()) {
    require(lora.rank == 0, "lora: rank must be at least 0");
    return;
  }
  require(lora.rank <= s.arch.hidden,
          "lora: rank (" + str(lora.rank) + ") must not exceed the hidden size (" + str(s.arch.hidden) + ")");
  require(lora.alpha > 0, "lora: alpha must be positive");
  require(!(s.arch.moe() && (lora.fc1 || lora.fc2)), "lora: fc1 and fc2 adapters need a dense MLP, not experts");
  require(!(lora.qkv || lora.fc1) || lora.rank % s.layout.tp == 0,
          "lora: rank (" + str(lora.rank) + ") of column-parallel adapters must be a multiple of tp (" +
              str(s.layout.tp) + ")");
}

void validate_samples(const LayerSpec& s) {
  if (s.sample_len == 0) {
    return;
  }
  require(s.sample_len > 0 && s.seq_len % s.sample_len == 0,
          "samples: sample_len (" + str(s.sample_len) + ") must divide seq_len (" + str(s.seq_len) + ")");
  require(s.layout.cp == 1, "samples: packed samples are run with cp = 1");
}

void validate_precision(const LayerSpec& s) {
  require(s.amax_history >= 1 && s.amax_history <= 1024, "fp8: amax_history must be in 1..1024");
  if (s.precision != Precision::fp8) {
    return;
  }
  // cuBLASLt FP8 GEMMs need every dimension a multiple of 16.
  const RankShapes r = rank_shapes(s);
  const std::int64_t rows = s.arch.moe() ? r.rows_per_expert : r.tokens;
  for (const auto& [value, what] :
       {std::pair{rows, "GEMM rows (tokens, or rows per expert)"}, std::pair{r.hidden, "hidden"},
        std::pair{r.ffn, "ffn / tp"}, std::pair{r.qkv_width, "qkv width / tp"}}) {
    require(value % 16 == 0, std::string("fp8: ") + what + " (" + str(value) + ") must be a multiple of 16");
  }
}

}  // namespace

std::string_view to_string(Activation value) { return enum_name(value, kActivations); }
std::string_view to_string(Norm value) { return enum_name(value, kNorms); }
std::string_view to_string(Precision value) { return enum_name(value, kPrecisions); }
std::string_view to_string(Fp8Scaling value) { return enum_name(value, kScalings); }
std::string_view to_string(Recompute value) { return enum_name(value, kRecomputes); }
std::optional<Activation> parse_activation(std::string_view text) { return parse_enum(text, kActivations); }
std::optional<Norm> parse_norm(std::string_view text) { return parse_enum(text, kNorms); }
std::optional<Precision> parse_precision(std::string_view text) { return parse_enum(text, kPrecisions); }
std::optional<Fp8Scaling> parse_fp8_scaling(std::string_view text) { return parse_enum(text, kScalings); }
std::optional<Recompute> parse_recompute(std::string_view text) { return parse_enum(text, kRecomputes); }

void validate(const LayerSpec& spec) {
  validate_architecture(spec.arch);
  validate_layout(spec);
  validate_lora(spec);
  validate_samples(spec);
  validate_precision(spec);
}

RankShapes rank_shapes(const LayerSpec& spec) {
  const Architecture& a = spec.arch;
  const Layout& l = spec.layout;
  RankShapes r;
  r.tokens = spec.micro_batch * spec.seq_len / l.cp;
  r.sp_tokens = r.tokens / l.tp;
  r.hidden = a.hidden;
  r.head_dim = a.dim();
  r.q_heads = a.heads / l.tp;
  r.kv_heads = std::max<std::int64_t>(1, a.kv_groups / l.tp);
  r.qkv_width = (r.q_heads + 2 * r.kv_heads) * r.head_dim;
  r.ffn = a.ffn / l.tp;
  r.fc1_width = a.gated() ? 2 * r.ffn : r.ffn;
  if (a.moe()) {
    r.local_experts = a.experts / l.ep;
    r.rows_per_expert = r.tokens * a.top_k * l.ep / a.experts;
  }
  r.q_len = spec.sample_len > 0 ? spec.sample_len : spec.seq_len / l.cp;
  r.attention_batch = spec.sample_len > 0 ? spec.micro_batch * spec.seq_len / spec.sample_len : spec.micro_batch;
  r.attention_steps = l.cp;
  return r;
}

std::string describe(const LayerSpec& spec) {
  const Architecture& a = spec.arch;
  std::ostringstream out;
  out << "h=" << a.hidden << " ffn=" << a.ffn << " heads=" << a.heads << " kv=" << a.kv_groups << " d=" << a.dim()
      << ' ' << to_string(a.activation) << ' ' << to_string(a.norm);
  if (a.moe()) {
    out << " experts=" << a.experts << " top_k=" << a.top_k;
  }
  out << " seq=" << spec.seq_len << " mbs=" << spec.micro_batch << " tp=" << spec.layout.tp << " cp=" << spec.layout.cp
      << " ep=" << spec.layout.ep << ' ' << to_string(spec.precision);
  if (spec.precision == Precision::fp8) {
    out << '(' << to_string(spec.scaling) << ')';
  }
  out << " recompute=" << to_string(spec.recompute);
  if (spec.sample_len > 0) {
    out << " sample=" << spec.sample_len;
  }
  const Lora& lora = spec.lora;
  if (lora.enabled()) {
    out << " lora=r" << lora.rank << '(';
    const char* sep = "";
    for (const auto& [on, name] : {std::pair{lora.qkv, "qkv"}, std::pair{lora.proj, "proj"}, std::pair{lora.fc1, "fc1"},
                                   std::pair{lora.fc2, "fc2"}}) {
      if (!on) {
        continue;
      }
      out << sep << name;
      sep = ",";
    }
    out << ')';
  }
  return out.str();
}

double model_flops(const LayerSpec& spec) {
  const Architecture& a = spec.arch;
  const double h = double(a.hidden);
  const double q_dim = double(a.heads * a.dim());
  const double kv_dim = double(a.kv_groups * a.dim());
  const double s = double(spec.seq_len);
  // Forward FLOPs per token: QKV and output projections, QKᵀ and PV over the whole sequence, the MLP.
  const double projections = 2 * h * (q_dim + 2 * kv_dim) + 2 * q_dim * h;
  const double core = 4 * (spec.sample_len > 0 ? double(spec.sample_len) : s) * q_dim;
  const double mlp_one = (a.gated() ? 3.0 : 2.0) * 2 * h * double(a.ffn);
  const double mlp = a.moe() ? double(a.top_k) * mlp_one + 2 * h * double(a.experts) : mlp_one;
  const double tokens = double(spec.micro_batch) * s;
  const Lora& lora = spec.lora;
  double per_token = 3 * (projections + core + mlp);
  if (lora.enabled()) {
    const double fc1_width = (a.gated() ? 2.0 : 1.0) * double(a.ffn);
    double adapters = 0;
    for (const auto& [on, in, out] : {std::tuple{lora.qkv, h, q_dim + 2 * kv_dim}, std::tuple{lora.proj, q_dim, h},
                                      std::tuple{lora.fc1, h, fc1_width}, std::tuple{lora.fc2, double(a.ffn), h}}) {
      adapters += on ? 6.0 * lora.rank * (in + out) : 0.0;
    }
    per_token = 2 * (projections + mlp) + 3 * core + adapters;
  }
  return per_token * tokens / double(spec.layout.tp * spec.layout.cp);
}

}  // namespace dgx::llm::kernels
