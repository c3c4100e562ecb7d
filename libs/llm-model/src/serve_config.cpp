#include "dgx/llm/serve_config.hpp"

#include "dgx/llm/serve_constants.hpp"

namespace dgx::llm {

namespace {

std::string n(long long value) { return std::to_string(value); }

std::optional<Error> layout_error(const ModelConfig& m, const SystemProfile& s, const ServeLayout& l) {
  if (l.tp < 1 || l.pp < 1 || l.ep < 1) {
    return Error{"TP, PP and EP must be at least 1, got TP " + n(l.tp) + " PP " + n(l.pp) + " EP " + n(l.ep)};
  }
  if (l.tp > s.nvlink_domain) {
    return Error{"TP " + n(l.tp) + " exceeds the NVLink domain of " + n(s.nvlink_domain) + " on " + s.name +
                 " (its all-reduces run twice per layer and token)"};
  }
  if (m.heads % l.tp != 0) {
    return Error{"TP " + n(l.tp) + " does not divide the " + n(m.heads) + " attention heads of " + m.name};
  }
  if (m.kv_groups % l.tp != 0 && l.tp % m.kv_groups != 0) {
    return Error{"TP " + n(l.tp) + " neither divides nor is a multiple of the " + n(m.kv_groups) + " KV heads of " +
                 m.name};
  }
  if (l.pp > m.layers) {
    return Error{"PP " + n(l.pp) + " exceeds the " + n(m.layers) + " layers of " + m.name};
  }
  if (l.ep > 1 && !m.moe()) {
    return Error{"EP " + n(l.ep) + " needs a mixture-of-experts model; " + m.name + " is dense"};
  }
  if (l.tp % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " must divide TP " + n(l.tp) + " (experts are spread inside the TP group)"};
  }
  if (m.experts % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " does not divide the " + n(m.experts) + " experts of " + m.name};
  }
  return std::nullopt;
}

std::optional<Error> precision_error(const SystemProfile& s, Precision precision, Precision kv) {
  if (!s.supports(precision)) {
    const bool block = precision == Precision::mxfp8 || precision == Precision::nvfp4;
    return Error{
        std::string(to_string(precision)) + " needs " +
        (block ? "block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, gb300-nvl72)" : "FP8 tensor cores") +
        "; " + s.name + " has none"};
  }
  if (kv == Precision::mxfp8) {
    return Error{"the KV cache is bf16, fp8 or nvfp4, got mxfp8"};
  }
  if (kv == Precision::nvfp4 && !s.block_scaled_formats) {
    return Error{"an nvfp4 KV cache needs Blackwell's FP4 formats; " + s.name + " has none"};
  }
  return std::nullopt;
}

std::optional<Error> length_error(const ModelConfig& m, const ServeConfig& c) {
  if (c.isl < 1 || c.osl < 1) {
    return Error{"input and output lengths must be at least 1 token, got ISL " + n(c.isl) + " OSL " + n(c.osl)};
  }
  if (c.isl > m.context) {
    return Error{"ISL " + n(c.isl) + " exceeds the context of " + m.name + " (" + n(m.context) + " tokens)"};
  }
  if (c.isl + c.osl > m.context) {
    return Error{"ISL " + n(c.isl) + " + OSL " + n(c.osl) + " exceeds the context of " + m.name + " (" + n(m.context) +
                 " tokens)"};
  }
  if (c.isl_stdev < 0 || c.osl_stdev < 0) {
    return Error{"length standard deviations must not be negative"};
  }
  if (c.concurrency < 0) {
    return Error{"concurrency must be 0 (offline) or a number of requests, got " + n(c.concurrency)};
  }
  if (c.batch_tokens() < 1 || c.batch_size() < 1) {
    return Error{"the token budget and the batch size of an iteration must be at least 1, got " +
                 n(c.max_batch_tokens) + " and " + n(c.max_batch_size)};
  }
  if (!(c.kv_fraction() > 0 && c.kv_fraction() <= 1)) {
    return Error{"the KV cache fraction must lie in (0, 1]"};
  }
  return std::nullopt;
}

}  // namespace

int ServeConfig::batch_tokens() const {
  return max_batch_tokens > 0 ? max_batch_tokens : serve_constants::kDefaultMaxBatchTokens;
}

int ServeConfig::batch_size() const {
  return max_batch_size > 0 ? max_batch_size : serve_constants::kDefaultMaxBatchSize;
}

double ServeConfig::kv_fraction() const {
  return kv_cache_fraction > 0 ? kv_cache_fraction : serve_constants::kDefaultKvCacheFraction;
}

Precision auto_kv_precision(Precision weights) { return weights == Precision::bf16 ? Precision::bf16 : Precision::fp8; }

std::string layout_label(const ServeLayout& layout, bool moe) {
  std::string out = "TP" + n(layout.tp) + " PP" + n(layout.pp);
  if (moe || layout.ep > 1) {
    out += " EP" + n(layout.ep);
  }
  return out;
}

std::optional<Error> serve_config_error(const ModelConfig& model, const SystemProfile& system,
                                        const ServeConfig& config) {
  if (auto e = layout_error(model, system, config.layout)) {
    return e;
  }
  if (auto e = precision_error(system, config.precision, config.kv_precision)) {
    return e;
  }
  return length_error(model, config);
}

std::optional<Error> serve_request_error(const ModelConfig& model, const ServeConfig& config) {
  return length_error(model, config);
}

}  // namespace dgx::llm
