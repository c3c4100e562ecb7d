#include "dgx/llm/kernels/serve_spec.hpp"

#include <stdexcept>

namespace dgx::llm::kernels {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) {
    throw std::invalid_argument(what);
  }
}

double gemm_bytes(Precision p) { return p == Precision::fp8 ? 1.0 : 2.0; }

std::int64_t kv_heads(const Architecture& a, int tp) { return a.kv_groups >= tp ? a.kv_groups / tp : 1; }

void validate_arch(const Architecture& a, int tp, int ep) {
  require(a.hidden > 0 && a.ffn > 0 && a.heads > 0 && a.kv_groups > 0, "hidden, ffn, heads and kv_groups must be set");
  require(tp >= 1 && ep >= 1, "tp and ep must be at least 1");
  require(a.heads % tp == 0, "tp must divide the heads");
  require(a.kv_groups % tp == 0 || tp % a.kv_groups == 0, "tp must divide or be a multiple of the KV heads");
  require(a.dim() % 8 == 0 && a.dim() <= 256, "head_dim must be a multiple of 8 and at most 256");
  require(a.ffn % tp == 0, "tp must divide ffn");
  require(!a.moe() || (a.experts % ep == 0 && tp % ep == 0), "ep must divide the experts and tp");
  require(a.moe() || ep == 1, "ep > 1 needs experts");
}

}  // namespace

std::string_view to_string(KvFormat format) { return format == KvFormat::fp8 ? "fp8" : "bf16"; }
std::size_t kv_element_bytes(KvFormat format) { return format == KvFormat::fp8 ? 1 : 2; }

void validate(const ServeLayerSpec& s) {
  validate_arch(s.arch, s.tp, s.ep);
  require(s.decode_batch >= 1, "decode_batch must be at least 1");
  require(s.context >= 1, "context must be at least 1 token");
  require(s.prefill_tokens >= 0, "prefill_tokens must not be negative");
}

std::string describe(const ServeLayerSpec& s) {
  const Architecture& a = s.arch;
  std::string out = "h=" + std::to_string(a.hidden) + " ffn=" + std::to_string(a.ffn) +
                    " heads=" + std::to_string(a.heads) + " kv=" + std::to_string(a.kv_groups) +
                    " d=" + std::to_string(a.dim());
  if (a.moe()) {
    out += " experts=" + std::to_string(a.experts) + " top" + std::to_string(a.top_k);
  }
  out += " tp=" + std::to_string(s.tp);
  if (s.ep > 1) {
    out += " ep=" + std::to_string(s.ep);
  }
  return out + " " + std::string(to_string(s.precision)) + " kv=" + std::string(to_string(s.kv)) +
         " batch=" + std::to_string(s.decode_batch) + " ctx=" + std::to_string(s.context) +
         " chunk=" + std::to_string(s.prefill_tokens);
}

double layer_weight_bytes(const ServeLayerSpec& s) {
  const Architecture& a = s.arch;
  const double d = static_cast<double>(a.dim());
  const double q = static_cast<double>(a.heads) / s.tp * d;
  const double kv = static_cast<double>(kv_heads(a, s.tp)) * d;
  const double h = static_cast<double>(a.hidden);
  const double attention = h * (q + 2 * kv) + q * h;
  const double matrices = a.gated() ? 3.0 : 2.0;
  const double mlp = a.moe() ? static_cast<double>(a.experts) / s.tp * matrices * h * static_cast<double>(a.ffn)
                             : matrices * h * static_cast<double>(a.ffn) / s.tp;
  const double router = a.moe() ? h * static_cast<double>(a.experts) * 2 : 0.0;
  return (attention + mlp) * gemm_bytes(s.precision) + router + 2 * h * 2;
}

double decode_kv_bytes(const ServeLayerSpec& s) {
  return static_cast<double>(s.decode_batch) * static_cast<double>(s.context) * 2.0 *
         static_cast<double>(kv_heads(s.arch, s.tp)) * static_cast<double>(s.arch.dim()) *
         static_cast<double>(kv_element_bytes(s.kv));
}

void validate(const DecodeModelSpec& s) {
  validate_arch(s.arch, 1, 1);
  require(!s.arch.moe(), "the decode loop runs dense models");
  require(s.layers >= 1, "layers must be at least 1");
  require(s.arch.vocab > 0, "vocab must be set");
  require(s.context >= 1, "context must be at least 1 token");
  require(s.max_batch >= 1, "max_batch must be at least 1");
  require(s.headroom >= 1, "headroom must be at least 1 token");
}

double model_weight_bytes(const DecodeModelSpec& s) {
  ServeLayerSpec layer{.arch = s.arch, .precision = s.precision};
  const double h = static_cast<double>(s.arch.hidden);
  const double vocab = static_cast<double>(s.arch.vocab);
  return s.layers * layer_weight_bytes(layer) + 2 * vocab * h * 2 + h * 2;
}

double model_kv_bytes_per_token(const DecodeModelSpec& s) {
  return static_cast<double>(s.layers) * 2.0 * static_cast<double>(s.arch.kv_groups) *
         static_cast<double>(s.arch.dim()) * static_cast<double>(kv_element_bytes(s.kv));
}

}  // namespace dgx::llm::kernels
