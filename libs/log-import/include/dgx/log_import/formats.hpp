// The formats of other tools' logs and result files dgxhost's plugins read, as the SDK declares them
// (<dgx/sdk/format.hpp>): each plugin adds the family of its domain to its PluginSpec, and the host asks their probes.
// What every reader does the same way (the warm-up rule, --set merged with what the file prints, the catalog's
// names for the printed model and GPU, plausibility, the rows' fields) lives here once; docs/import-formats.md lists
// the formats with a real sample of each.
#pragma once

#include <vector>

#include <dgx/sdk/format.hpp>

namespace dgx::logs {

/// llm-pretrain: NeMo / Megatron-Bridge, Megatron-LM (and its forks), torchtitan, MLPerf Training's MLLOG. A
/// fine-tuning run (MLPerf's LoRA benchmark) becomes a row of llm-finetune.
std::vector<sdk::FormatSpec> training_formats();

/// llm-inference: AIPerf (console and exports), GenAI-Perf, vllm bench serve, SGLang bench_serving, trtllm-bench,
/// MLPerf Inference's loadgen logs.
std::vector<sdk::FormatSpec> serving_formats();

/// comm: nccl-tests (and rccl-tests' identical output).
std::vector<sdk::FormatSpec> collective_formats();

}  // namespace dgx::logs
