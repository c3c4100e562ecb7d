// Fine-tuning: full supervised fine-tuning (SFT) and LoRA adapters on a frozen base, on packed or padded samples.
//
// SFT is pretraining math on the fine-tuning data: every weight trains, with gradients and optimizer state; the
// loss is masked to the answer tokens, which changes which tokens count, not the work. LoRA (Hu et al., arXiv
// 2106.09685) freezes the base: its weights get no gradient, no optimizer state and no weight-gradient GEMM, but
// still run their forward and data-gradient GEMMs (the gradient flows through them to the adapters below);
// each targeted linear layer W gets y = x·Wᵀ + (alpha / rank)·(x·Aᵀ)·Bᵀ with A [rank, in] and B [out, rank]
// trained. Packed sequences (NeMo's packed SFT: samples concatenated up to the sequence length, attention kept
// within each sample through cu_seqlens) waste only the tail of each pack; unpacked samples are padded to the
// sequence length, one per sequence, and the padding is computed like any token.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/flops.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

enum class FineTuneMethod : std::uint8_t { sft, lora };
inline constexpr FineTuneMethod kAllFineTuneMethods[] = {FineTuneMethod::sft, FineTuneMethod::lora};

[[nodiscard]] std::string_view to_string(FineTuneMethod method);
[[nodiscard]] std::optional<FineTuneMethod> parse_finetune_method(std::string_view text);

/// The linear layers of a decoder layer an adapter can wrap (Megatron: linear_qkv, linear_proj, linear_fc1,
/// linear_fc2). qkv and fc1 are column-parallel under TP, proj and fc2 row-parallel.
enum class LoraTarget : std::uint8_t { qkv, proj, fc1, fc2 };
inline constexpr LoraTarget kAllLoraTargets[] = {LoraTarget::qkv, LoraTarget::proj, LoraTarget::fc1, LoraTarget::fc2};

[[nodiscard]] std::string_view to_string(LoraTarget target);
[[nodiscard]] std::optional<LoraTarget> parse_lora_target(std::string_view text);

/// NVIDIA's performance recipes: rank 16, alpha 32, adapters on the QKV projection only.
struct LoraConfig {
  int rank = 16;
  double alpha = 32;
  std::vector<LoraTarget> targets{LoraTarget::qkv};

  [[nodiscard]] bool wraps(LoraTarget target) const;
  [[nodiscard]] double scale() const { return alpha / rank; }
};

struct FineTune {
  FineTuneMethod method = FineTuneMethod::sft;
  LoraConfig lora;  ///< method lora only
  bool packed = true;
  /// Average tokens per sample (prompt and answer): packed samples attend only within themselves, unpacked ones
  /// are padded to the sequence. 0: the samples fill the sequence (no per-sample attention, no padding).
  double avg_tokens_per_sample = 0;

  [[nodiscard]] bool lora_method() const { return method == FineTuneMethod::lora; }
};

/// Input and output width of a targeted linear layer (the whole model's, before TP).
struct LinearWidth {
  std::int64_t in = 0, out = 0;
};
[[nodiscard]] LinearWidth linear_width(const ModelConfig& model, LoraTarget target);

/// The configuration or the reason it cannot be fine-tuned: a rank below 1 or above the hidden size, no target,
/// a target the model lacks (fc1/fc2 of a mixture-of-experts model: its MLP is experts), samples longer than
/// the sequence.
[[nodiscard]] Expected<FineTune> check_finetune(const ModelConfig& model, const FineTune& finetune, int seq_len);

/// Parameters that train: every parameter for SFT, the adapters for LoRA (layers × Σ rank·(in + out)).
[[nodiscard]] double trainable_parameters(const ModelConfig& model, const FineTune& finetune);
/// LoRA parameters of one layer held by one TP rank: column-parallel targets shard B over the output (A is
/// [rank/tp, in], Megatron's ColumnParallelLinear for both), row-parallel ones shard A over the input (B
/// replicated). 0 for SFT.
[[nodiscard]] double adapter_parameters_per_gpu(const ModelConfig& model, const LoraConfig& lora, int tp);

/// Fraction of the processed tokens that are sample tokens. Packed: 1 − 0.5·avg/seq (the pack's unfillable tail
/// is on average half a sample: first-fit packing of samples much shorter than the sequence wastes a few %);
/// unpacked: avg/seq (one sample per padded sequence); 1 when avg is 0.
[[nodiscard]] double sample_efficiency(const FineTune& finetune, int seq_len);

/// Tokens the run processes (padding included) to train `dataset_tokens` sample tokens.
[[nodiscard]] double processed_tokens(double dataset_tokens, const FineTune& finetune, int seq_len);

/// Tokens each query attends over in the attention core: the sample for packed samples (avg tokens), else the
/// padded sequence.
[[nodiscard]] double attention_span(const FineTune& finetune, int seq_len);

/// Model FLOPs of one sequence as executed, the numerator of MFU (flops.hpp's convention otherwise):
/// - SFT: model_flops_per_sequence with the attention core over attention_span (12·L·h·c·span per token);
/// - LoRA: the GEMM terms × 2/3 (forward and data gradient, no weight gradient for frozen weights), the attention
///   core whole (its backward computes dQ, dK, dV either way), plus the adapters, 6·rank·(in + out) per targeted
///   layer and token. DGX Cloud Benchmarking instead reports SFT × 2/3 for LoRA (sft_two_thirds_flops).
[[nodiscard]] double finetune_flops_per_sequence(const ModelConfig& model, int seq_len, const FineTune& finetune,
                                                 AttentionFlops convention = AttentionFlops::full);
/// The DGX Cloud Benchmarking convention for LoRA MFU: the SFT model FLOPs × 2/3 (SFT rows: the SFT FLOPs).
[[nodiscard]] double published_finetune_flops_per_sequence(const ModelConfig& model, int seq_len,
                                                           const FineTune& finetune,
                                                           AttentionFlops convention = AttentionFlops::full);

/// "qkv, proj" for messages.
[[nodiscard]] std::string targets_label(const LoraConfig& lora);

}  // namespace dgx::llm
