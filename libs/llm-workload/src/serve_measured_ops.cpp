#include "dgx/llm/workload/serve_measured_ops.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <dgx/sdk/error.hpp>

namespace dgx::llm::workload {

namespace {

/// The size an op's time scales with, for interpolating ratios between shapes.
double op_size(const Op& op) {
  if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
    return static_cast<double>(g->m) * g->groups;
  }
  if (const auto* a = std::get_if<AttentionShape>(&op.shape)) {
    return static_cast<double>(a->q_len) * a->kv_len * a->batch;
  }
  if (const auto* m = std::get_if<MemoryShape>(&op.shape)) {
    return m->bytes;
  }
  return 1;
}

bool gemm_matches(const GemmShape& model, const kernels::GemmDims& measured) {
  // The two libraries may transpose a GEMM: the weight's two dimensions match in either order.
  const auto same = [](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    return (a == c && b == d) || (a == d && b == c);
  };
  return same(model.n, model.k, measured.n, measured.k);
}

}  // namespace

void MeasuredRatios::add(const Op& op, double measured_seconds) {
  const double modelled = fallback_->seconds(op);
  if (modelled > 0 && measured_seconds > 0) {
    ratios_[std::string(op.name)][std::log(std::max(1.0, op_size(op)))] = measured_seconds / modelled;
  }
}

double MeasuredRatios::ratio(const Op& op) const {
  const auto found = ratios_.find(op.name);
  if (found == ratios_.end()) {
    return 1;
  }
  const std::map<double, double>& by_size = found->second;
  const double x = std::log(std::max(1.0, op_size(op)));
  const auto above = by_size.lower_bound(x);
  if (above == by_size.begin()) {
    return above->second;
  }
  if (above == by_size.end()) {
    return std::prev(above)->second;
  }
  const auto below = std::prev(above);
  const double t = (x - below->first) / (above->first - below->first);
  return below->second + t * (above->second - below->second);
}

double MeasuredRatios::seconds(const Op& op) const { return fallback_->seconds(op) * ratio(op); }

std::string_view MeasuredRatios::source(const Op& op) const {
  return ratios_.contains(op.name) ? "measured" : fallback_->source(op);
}

ServeMatchReport apply_serve_measurements(const std::vector<kernels::OpTiming>& measured,
                                          const std::vector<Op>& model_ops, MeasuredRatios& ratios) {
  ServeMatchReport report;
  for (const Op& op : model_ops) {
    if (op.is_communication()) {
      continue;
    }
    ++report.model_ops;
    const auto hit = std::find_if(measured.begin(), measured.end(), [&](const kernels::OpTiming& m) {
      if (m.name != op.name) {
        return false;
      }
      const auto* gemm = std::get_if<GemmShape>(&op.shape);
      return gemm == nullptr || (m.kind == kernels::OpKind::gemm && gemm_matches(*gemm, m.gemm));
    });
    if (hit == measured.end()) {
      report.unmatched.emplace_back(op.name);
      continue;
    }
    ratios.add(op, hit->seconds * hit->calls);
    ++report.matched;
  }
  return report;
}

kernels::Architecture kernels_architecture(const ModelConfig& model) {
  kernels::Architecture a;
  a.hidden = model.hidden;
  a.ffn = model.ffn;
  a.heads = model.heads;
  a.kv_groups = model.kv_groups;
  a.activation = model.activation == Activation::swiglu ? kernels::Activation::swiglu
                 : model.activation == Activation::gelu ? kernels::Activation::gelu
                                                        : kernels::Activation::squared_relu;
  a.norm = model.norm_bias ? kernels::Norm::layernorm : kernels::Norm::rmsnorm;
  a.rope = model.rope;
  a.experts = model.experts > 1 ? model.experts : 0;
  a.top_k = model.experts > 1 ? model.top_k : 0;
  a.vocab = model.vocab;
  return a;
}

kernels::ServeLayerSpec serve_layer_spec(const ModelConfig& model, const ServeShape& shape, std::int64_t decode_batch,
                                         std::int64_t context, std::int64_t prefill_tokens) {
  kernels::ServeLayerSpec spec;
  spec.arch = kernels_architecture(model);
  spec.tp = shape.layout.tp;
  spec.ep = shape.layout.ep;
  switch (shape.precision) {
  case Precision::bf16: spec.precision = kernels::Precision::bf16; break;
  case Precision::fp8: spec.precision = kernels::Precision::fp8; break;
  default:
    throw dgx::sdk::Unsupported("the measured path runs bf16 and fp8 layers; " +
                                std::string(to_string(shape.precision)) + " is projected only (--mode project)");
  }
  if (shape.kv_precision == Precision::nvfp4) {
    throw dgx::sdk::Unsupported("the measured path keeps the KV cache in bf16 or fp8; nvfp4 is projected only");
  }
  spec.kv = shape.kv_precision == Precision::fp8 ? kernels::KvFormat::fp8 : kernels::KvFormat::bf16;
  spec.decode_batch = std::max<std::int64_t>(1, decode_batch);
  spec.context = std::max<std::int64_t>(1, context);
  spec.prefill_tokens = prefill_tokens;
  return spec;
}

}  // namespace dgx::llm::workload
