#include "dgx/llm/serve_config.hpp"

#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_engine.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/serve_precision.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace dgx::llm {

namespace {

std::string n(long long value) { return std::to_string(value); }

template <typename Enum, std::size_t N>
std::optional<Enum> parse_named(const std::array<std::pair<Enum, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [value, name] : names) {
    if (name == text) {
      return value;
    }
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) {
      return name;
    }
  }
  return "?";
}

constexpr std::array<std::pair<Speculation, std::string_view>, 4> kSpeculations{{{Speculation::none, "none"},
                                                                                 {Speculation::mtp, "mtp"},
                                                                                 {Speculation::eagle, "eagle"},
                                                                                 {Speculation::draft, "draft"}}};
constexpr std::array<std::pair<ServeEngine, std::string_view>, 3> kEngines{
    {{ServeEngine::trtllm, "trtllm"}, {ServeEngine::vllm, "vllm"}, {ServeEngine::sglang, "sglang"}}};
constexpr std::array<std::pair<Arrival, std::string_view>, 3> kArrivals{
    {{Arrival::poisson, "poisson"}, {Arrival::constant, "constant"}, {Arrival::burst, "burst"}}};

std::optional<Error> attention_dp_error(const ModelConfig& m, const SystemProfile& s, const ServeLayout& l) {
  if (!m.moe()) {
    return Error{"attention data parallelism needs a mixture-of-experts model: " + m.name +
                 " is dense, so every GPU would hold the whole model and its requests alone, which is replicas "
                 "(gpus > TP), not attention DP"};
  }
  if (l.tp % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " must divide the " + n(l.tp) + " GPUs of the attention-DP group (TP " + n(l.tp) +
                 ")"};
  }
  if (m.experts % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " does not divide the " + n(m.experts) + " experts of " + m.name};
  }
  if (l.pp > m.layers) {
    return Error{"PP " + n(l.pp) + " exceeds the " + n(m.layers) + " layers of " + m.name};
  }
  if (l.expert_tp() > s.nvlink_domain) {
    return Error{"expert TP " + n(l.expert_tp()) + " (TP / EP) exceeds the NVLink domain of " + n(s.nvlink_domain) +
                 " on " + s.name};
  }
  return std::nullopt;
}

/// TP splits the heads of every layer kind: each group's KV heads (dividing or divided by TP, as attention's),
/// Mamba-2's heads and groups, linear attention's key and value heads.
std::optional<Error> mixer_heads_error(const ModelConfig& m, int tp) {
  for (const LayerGroup& group : serve_layer_groups(m)) {
    const ModelConfig v = serve_view(m, group);
    const auto fails = [tp](int heads) { return heads > 0 && heads % tp != 0; };
    const bool bad = v.mixer == Mixer::mamba2 ? fails(v.mamba.heads) || fails(v.mamba.groups)
                     : v.mixer == Mixer::linear_attention
                         ? fails(v.linear_attention.key_heads) || fails(v.linear_attention.value_heads)
                     : v.mixer == Mixer::attention ? v.kv_groups % tp != 0 && tp % v.kv_groups != 0
                                                   : false;
    if (bad) {
      return Error{"TP " + n(tp) + " does not divide the heads of the " + std::string(to_string(v.mixer)) +
                   " layers of " + m.name +
                   " (Mamba-2 heads and groups, linear-attention key and value heads, KV heads)"};
    }
  }
  return std::nullopt;
}

std::optional<Error> layout_error(const ModelConfig& m, const SystemProfile& s, const ServeLayout& l) {
  if (l.tp < 1 || l.pp < 1 || l.ep < 1) {
    return Error{"TP, PP and EP must be at least 1, got TP " + n(l.tp) + " PP " + n(l.pp) + " EP " + n(l.ep)};
  }
  if (l.attention_dp) {
    return attention_dp_error(m, s, l);
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
  if (auto e = mixer_heads_error(m, l.tp)) {
    return e;
  }
  if (l.ep > 1 && !m.moe()) {
    return Error{"EP " + n(l.ep) + " needs a mixture-of-experts model; " + m.name + " is dense"};
  }
  if (l.tp % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " must divide TP " + n(l.tp) +
                 " (experts are spread inside the TP group); for DeepSeek-style wide EP over " + n(l.ep) +
                 " GPUs set TP " + n(l.ep) +
                 " with attention DP (parallel.attention_dp = true): attention data "
                 "parallel, experts over all of them"};
  }
  if (m.experts % l.ep != 0) {
    return Error{"EP " + n(l.ep) + " does not divide the " + n(m.experts) + " experts of " + m.name};
  }
  return std::nullopt;
}

std::optional<Error> precision_error(const SystemProfile& s, Precision precision, Precision kv) {
  if (!s.supports(gemm_precision(precision, s))) {
    const bool block = precision == Precision::mxfp8 || precision == Precision::nvfp4;
    return Error{
        std::string(to_string(precision)) + " needs " +
        (block ? "block-scaled FP4/FP8 tensor cores (Blackwell: b200, gb200-nvl72, gb300-nvl72)" : "FP8 tensor cores") +
        "; " + s.name + " has none"};
  }
  if (kv == Precision::mxfp8 || !is_gemm_precision(kv)) {
    return Error{"the KV cache is bf16, fp8 or nvfp4, got " + std::string(to_string(kv))};
  }
  if (kv == Precision::nvfp4 && !s.block_scaled_formats) {
    return Error{"an nvfp4 KV cache needs Blackwell's FP4 formats; " + s.name + " has none"};
  }
  return std::nullopt;
}

std::optional<Error> table_error(const ModelConfig& m, const LengthTable& t) {
  if (t.rows.empty()) {
    return Error{t.source + ": no requests (a lengths file needs at least one row of input,output token counts)"};
  }
  if (t.max_total() > m.context) {
    const auto it =
        std::max_element(t.rows.begin(), t.rows.end(), [](const RequestLengths& a, const RequestLengths& b) {
          return a.isl + a.osl < b.isl + b.osl;
        });
    return Error{t.source + ": a request of ISL " + n(it->isl) + " + OSL " + n(it->osl) + " exceeds the context of " +
                 m.name + " (" + n(m.context) + " tokens)"};
  }
  return std::nullopt;
}

std::optional<Error> load_error(const ServeConfig& c) {
  if (c.concurrency < 0) {
    return Error{"concurrency must be 0 (offline) or a number of requests, got " + n(c.concurrency)};
  }
  if (c.request_rate < 0 || (c.request_rate == 0 && c.arrival != Arrival::burst && c.open_loop())) {
    return Error{"the request rate must be > 0 requests/s, got " + sdk::text::fixed(c.request_rate, 3)};
  }
  if (c.open_loop() && c.concurrency > 0) {
    return Error{"a request rate (open loop) and a concurrency (closed loop) exclude each other: set one of them"};
  }
  if (c.requests < 0) {
    return Error{"the number of requests must be >= 0 (0: enough for a steady state), got " + n(c.requests)};
  }
  return std::nullopt;
}

std::optional<Error> speculation_error(const ModelConfig& m, const ServeConfig& c) {
  const SpeculativeConfig& sp = c.speculative;
  if (!sp.active()) {
    return std::nullopt;
  }
  const std::string kind(to_string(sp.kind));
  if (sp.draft_tokens < 1) {
    return Error{"speculative decoding (" + kind + ") needs a draft length of at least 1 token, got " +
                 n(sp.draft_tokens)};
  }
  if (!(sp.accepted >= 0) || sp.accepted > sp.draft_tokens) {
    return Error{"the acceptance (" + sdk::text::fixed(sp.accepted, 2) +
                 " draft tokens accepted per step) must lie in [0, " + n(sp.draft_tokens) +
                 "]: at most the draft length of " + n(sp.draft_tokens) + " tokens can be accepted"};
  }
  if (sp.kind == Speculation::mtp && m.mtp_layers < 1) {
    return Error{"speculative = mtp needs the model's multi-token-prediction module; " + m.name +
                 " has none (DeepSeek-V3/R1 have one): use eagle or draft"};
  }
  if (sp.kind == Speculation::draft) {
    if (!sp.draft_model) {
      return Error{"speculative = draft needs the draft model (serve.draft_model, from the model catalog)"};
    }
    if (sp.draft_model->vocab != m.vocab) {
      return Error{"the draft model " + sp.draft_model->name + " has a vocabulary of " + n(sp.draft_model->vocab) +
                   " tokens, " + m.name + " one of " + n(m.vocab) + ": a draft must share the model's tokenizer"};
    }
  }
  if (c.engine == ServeEngine::vllm && c.layout.pp > 1) {
    return Error{"vLLM's speculative decoding does not run with pipeline parallelism (PP " + n(c.layout.pp) +
                 "): use PP 1, or serve.engine = trtllm"};
  }
  return std::nullopt;
}

std::optional<Error> length_error(const ModelConfig& m, const ServeConfig& c) {
  if (c.lengths) {
    if (auto e = table_error(m, *c.lengths)) {
      return e;
    }
  }
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
  if (auto e = load_error(c)) {
    return e;
  }
  if (c.batch_tokens() < 1 || c.batch_size() < 1) {
    return Error{"the token budget and the batch size of an iteration must be at least 1, got " +
                 n(c.max_batch_tokens) + " and " + n(c.max_batch_size)};
  }
  if (!(c.kv_fraction() > 0 && c.kv_fraction() <= 1)) {
    return Error{"the KV cache fraction must lie in (0, 1]"};
  }
  return speculation_error(m, c);
}

}  // namespace

int ServeConfig::batch_tokens() const {
  if (max_batch_tokens > 0) {
    return max_batch_tokens;
  }
  const EngineProfile* e = engine_profile(engine);
  return e != nullptr ? e->max_batch_tokens : serve_constants::kDefaultMaxBatchTokens;
}

int ServeConfig::batch_size() const {
  if (max_batch_size > 0) {
    return max_batch_size;
  }
  const EngineProfile* e = engine_profile(engine);
  return e != nullptr ? e->max_batch_size : serve_constants::kDefaultMaxBatchSize;
}

int ServeConfig::cuda_graph_max_batch() const {
  const EngineProfile* e = engine_profile(engine);
  return e != nullptr ? e->cuda_graph_max_batch : serve_constants::kCudaGraphMaxBatch;
}

double ServeConfig::kv_fraction() const {
  return kv_cache_fraction > 0 ? kv_cache_fraction : serve_constants::kDefaultKvCacheFraction;
}

int ServeConfig::reserved_tokens() const {
  const int lookahead = speculative.active() ? speculative.draft_tokens : 0;
  return (lengths ? std::max(lengths->max_total(), isl + osl) : isl + osl) + lookahead;
}

std::string_view to_string(Speculation speculation) { return name_of(kSpeculations, speculation); }
std::optional<Speculation> parse_speculation(std::string_view text) { return parse_named(kSpeculations, text); }
std::string_view to_string(ServeEngine engine) { return name_of(kEngines, engine); }
std::optional<ServeEngine> parse_serve_engine(std::string_view text) { return parse_named(kEngines, text); }
std::string_view to_string(Arrival arrival) { return name_of(kArrivals, arrival); }
std::optional<Arrival> parse_arrival(std::string_view text) { return parse_named(kArrivals, text); }

double LengthTable::mean_isl() const {
  double sum = 0, weight = 0;
  for (const RequestLengths& r : rows) {
    sum += r.weight * r.isl;
    weight += r.weight;
  }
  return weight > 0 ? sum / weight : 0;
}

double LengthTable::mean_osl() const {
  double sum = 0, weight = 0;
  for (const RequestLengths& r : rows) {
    sum += r.weight * r.osl;
    weight += r.weight;
  }
  return weight > 0 ? sum / weight : 0;
}

int LengthTable::max_total() const {
  int most = 0;
  for (const RequestLengths& r : rows) {
    most = std::max(most, r.isl + r.osl);
  }
  return most;
}

Precision auto_kv_precision(Precision weights) {
  return weights == Precision::bf16 || weights == Precision::mxfp4 || weights == Precision::int4 ? Precision::bf16
                                                                                                 : Precision::fp8;
}

std::string layout_label(const ServeLayout& layout, bool moe) {
  if (layout.attention_dp) {
    std::string out = "DEP" + n(layout.tp) + " PP" + n(layout.pp);
    return layout.ep == layout.tp ? out : out + " EP" + n(layout.ep);
  }
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
  if (const EngineProfile* engine = engine_profile(config.engine)) {
    if (auto e = engine_feature_error(*engine, config)) {
      return e;
    }
  }
  return serve_request_error(model, config);
}

std::optional<Error> serve_request_error(const ModelConfig& model, const ServeConfig& config) {
  if (const EngineProfile* engine = engine_profile(config.engine)) {
    if (auto e = engine_version_error(*engine, config.engine_version)) {
      return e;
    }
  }
  return length_error(model, config);
}

}  // namespace dgx::llm
