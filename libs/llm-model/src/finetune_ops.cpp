#include "dgx/llm/finetune_ops.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/model_constants.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kCausalTile;
/// An adapter's up projection (and down's data gradient) adds into the base GEMM's output: C is read and written
/// in BF16 (the roofline counts 2 + 2 × this per element).
constexpr double kAccumulateInto = 1;

/// Static names of one target's ops (Op keeps string_views).
struct AdapterNames {
  LoraTarget target;
  std::string_view base;          ///< the frozen GEMM the adapter wraps
  std::string_view gather_wgrad;  ///< the base's re-gather of its input for wgrad (column-parallel)
  std::string_view down, up;
  std::string_view forward_comm, backward_comm;
};

constexpr AdapterNames kAdapters[] = {
    {LoraTarget::qkv, "qkv", "tp_all_gather_qkv_wgrad", "qkv_lora_a", "qkv_lora_b", "tp_all_gather_qkv_lora",
     "tp_all_reduce_qkv_lora_grad"},
    {LoraTarget::proj, "proj", "", "proj_lora_a", "proj_lora_b", "tp_all_reduce_proj_lora", ""},
    {LoraTarget::fc1, "fc1", "tp_all_gather_fc1_wgrad", "fc1_lora_a", "fc1_lora_b", "tp_all_gather_fc1_lora",
     "tp_all_reduce_fc1_lora_grad"},
    {LoraTarget::fc2, "fc2", "", "fc2_lora_a", "fc2_lora_b", "tp_all_reduce_fc2_lora", ""},
};

/// Re-gathers of a frozen column-parallel layer's input that only its weight gradient reads.
constexpr std::string_view kWgradGathers[] = {"tp_all_gather_qkv_wgrad", "tp_all_gather_fc1_wgrad",
                                              "tp_all_gather_experts_wgrad"};

bool is_column(LoraTarget target) { return target == LoraTarget::qkv || target == LoraTarget::fc1; }

const AdapterNames* adapter_of(std::string_view base, const LoraConfig& lora) {
  for (const AdapterNames& a : kAdapters) {
    if (a.base == base && lora.wraps(a.target)) {
      return &a;
    }
  }
  return nullptr;
}

Op gemm(std::string_view name, Pass pass, double m, double n, double k, double accumulate, bool recompute) {
  const double acc = pass == Pass::wgrad ? constants::kGradBytes : accumulate;
  return Op{.name = name,
            .pass = pass,
            .precision = Precision::bf16,
            .shape = GemmShape{.m = std::int64_t(m),
                               .n = std::int64_t(std::max(1.0, n)),
                               .k = std::int64_t(std::max(1.0, k)),
                               .accumulate_bytes = acc},
            .recompute = recompute};
}

/// Builds the adapter ops of one targeted layer at the per-rank shapes (finetune_ops.hpp).
class AdapterOps {
public:
  AdapterOps(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape, const LoraConfig& lora)
      : model_(model), shape_(shape), lora_(lora), tokens_(static_cast<double>(shape.local_tokens())),
        tp_group_(place_group(1, shape.tp, system.nvlink_domain)) {}

  void forward(const AdapterNames& a, bool recompute, std::vector<Op>& out) const {
    const LinearWidth w = linear_width(model_, a.target);
    const double t = tokens_, tp = shape_.tp, r = lora_.rank;
    if (is_column(a.target)) {
      out.push_back(gemm(a.down, Pass::forward, t, r / tp, w.in, 0, recompute));
      comm(a.forward_comm, Pass::forward, Collective::all_gather, t * r * kBf16, recompute, out);
      out.push_back(gemm(a.up, Pass::forward, t, w.out / tp, r, kAccumulateInto, recompute));
      return;
    }
    out.push_back(gemm(a.down, Pass::forward, t, r, w.in / tp, 0, recompute));
    comm(a.forward_comm, Pass::forward, Collective::all_reduce, t * r * kBf16, recompute, out);
    out.push_back(gemm(a.up, Pass::forward, t / tp, w.out, r, kAccumulateInto, recompute));
  }

  void backward(const AdapterNames& a, std::vector<Op>& out) const {
    const LinearWidth w = linear_width(model_, a.target);
    const double t = tokens_, tp = shape_.tp, r = lora_.rank;
    if (is_column(a.target)) {
      out.push_back(gemm(a.up, Pass::dgrad, t, r, w.out / tp, 0, false));
      comm(a.backward_comm, Pass::backward, Collective::all_reduce, t * r * kBf16, false, out);
      out.push_back(gemm(a.up, Pass::wgrad, w.out / tp, r, t, 0, false));
      out.push_back(gemm(a.down, Pass::wgrad, r / tp, w.in, t, 0, false));
      out.push_back(gemm(a.down, Pass::dgrad, t, w.in, r / tp, kAccumulateInto, false));
      return;
    }
    // The output gradient arrives TP-gathered for the base's data gradient; every rank holds the whole rank-wide
    // intermediate, so up's gradients need no reduction.
    out.push_back(gemm(a.up, Pass::dgrad, t, r, w.out, 0, false));
    out.push_back(gemm(a.up, Pass::wgrad, w.out, r, t, 0, false));
    out.push_back(gemm(a.down, Pass::wgrad, r, w.in / tp, t, 0, false));
    out.push_back(gemm(a.down, Pass::dgrad, t, w.in / tp, r, kAccumulateInto, false));
  }

private:
  void comm(std::string_view name, Pass pass, Collective kind, double bytes, bool recompute,
            std::vector<Op>& out) const {
    if (tp_group_.ranks > 1 && !name.empty()) {
      out.push_back(Op{.name = name,
                       .pass = pass,
                       .group = CommGroup::tp,
                       .shape = CollectiveShape{.collective = kind, .bytes = bytes, .placement = tp_group_},
                       .recompute = recompute});
    }
  }

  const ModelConfig& model_;
  const ShapeKey& shape_;
  const LoraConfig& lora_;
  double tokens_;
  GroupPlacement tp_group_;
};

bool is_cast(const Op& op, std::string_view suffix) {
  const std::string_view n = op.name;
  return n.substr(0, 5) == "cast_" && n.size() > suffix.size() && n.substr(n.size() - suffix.size()) == suffix;
}

/// FP8 casts write the FP8 copy and its transpose (for wgrad): a frozen layer needs only the copy.
void drop_transpose(Op& op, Precision precision) {
  auto* memory = std::get_if<MemoryShape>(&op.shape);
  if (memory == nullptr || !casts_gemm_inputs(precision)) {
    return;
  }
  const double out = gemm_operand_bytes(precision);
  memory->bytes *= (kBf16 + out) / (kBf16 + 2 * out);
}

/// One pass of a layer or the output stage under LoRA.
std::vector<Op> lora_pass(const std::vector<Op>& ops, const AdapterOps& adapters, const ShapeKey& shape,
                          const LoraConfig& lora) {
  std::vector<Op> out;
  out.reserve(ops.size() + 8 * lora.targets.size());
  for (const Op& op : ops) {
    const bool gemm_op = std::holds_alternative<GemmShape>(op.shape);
    if (gemm_op && op.pass == Pass::wgrad) {
      continue;  // frozen weight
    }
    const auto gather = std::find(std::begin(kWgradGathers), std::end(kWgradGathers), op.name);
    if (gather != std::end(kWgradGathers)) {
      const bool needed = (op.name == kAdapters[0].gather_wgrad && lora.wraps(LoraTarget::qkv)) ||
                          (op.name == kAdapters[2].gather_wgrad && lora.wraps(LoraTarget::fc1));
      if (needed) {
        out.push_back(op);
      }
      continue;
    }
    out.push_back(op);
    if (is_cast(op, "_grad") || is_cast(op, "_input")) {
      drop_transpose(out.back(), shape.precision);
    }
    const AdapterNames* adapter = gemm_op ? adapter_of(op.name, lora) : nullptr;
    if (adapter == nullptr) {
      continue;
    }
    if (op.pass == Pass::forward) {
      adapters.forward(*adapter, op.recompute, out);
    } else if (op.pass == Pass::dgrad) {
      adapters.backward(*adapter, out);
    }
  }
  return out;
}

/// Packed samples: the attention core of one micro-batch is `samples` causal attentions of a sample's tokens.
void per_sample_attention(std::vector<Op>& ops, const ShapeKey& shape, double span) {
  const double tokens = static_cast<double>(shape.mbs) * shape.seq_len;
  const double samples = std::max(1.0, std::round(tokens / span));
  const double length = tokens / samples;
  const double queries = length / shape.cp;
  for (Op& op : ops) {
    auto* a = std::get_if<AttentionShape>(&op.shape);
    if (a == nullptr) {
      continue;
    }
    a->batch = std::int64_t(samples);
    a->q_len = std::int64_t(std::max(1.0, queries));
    a->kv_len = std::int64_t(length);
    a->mask_fraction = std::min(1.0, 0.5 * (1.0 + kCausalTile / std::max(1.0, queries)));
  }
}

}  // namespace

void apply_finetune(OpList& ops, StepChunk chunk, const ModelConfig& model, const SystemProfile& system,
                    const ShapeKey& shape, const FineTune& finetune) {
  const double span = attention_span(finetune, shape.seq_len);
  if (chunk == StepChunk::layer && span < shape.seq_len) {
    per_sample_attention(ops.forward, shape, span);
    per_sample_attention(ops.backward, shape, span);
  }
  if (!finetune.lora_method()) {
    return;
  }
  if (chunk == StepChunk::embedding) {
    ops.backward.clear();  // a frozen embedding needs no gradient
    return;
  }
  const AdapterOps adapters(model, system, shape, finetune.lora);
  ops.forward = lora_pass(ops.forward, adapters, shape, finetune.lora);
  ops.backward = lora_pass(ops.backward, adapters, shape, finetune.lora);
}

}  // namespace dgx::llm
