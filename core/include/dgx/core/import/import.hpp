// dgxhost import: the logs and result files of the tools people already run (NeMo / Megatron-Bridge, Megatron-LM,
// torchtitan, MLPerf MLLOG, nccl-tests, AIPerf, GenAI-Perf, SGLang's and vLLM's benchmarks, trtllm-bench), read into
// dgx.results/1 rows of mode measured, each labelled with the tool that measured it ("measured (imported:
// torchtitan)"). One parser per format (core/src/import/<format>.cpp; GenAI-Perf's table is AIPerf's, in aiperf.cpp,
// and SGLang's report vLLM's, serving_result.cpp); what the file prints is read from it, what it does not from --set,
// and nothing is guessed: a key a row needs and the file lacks is an error naming the key and the --set that
// supplies it.
//
// The rows use the configuration keys of the workload that would have run them, so `dgxhost verdict` can project
// exactly that configuration:
//   training (llm-pretrain; llm-finetune for fine-tuning runs such as MLPerf's LoRA benchmark): model, system,
//     framework (when known), gpus, precision, parallel.tp/pp/cp/vp/ep, parallel.fsdp, train.mbs, train.gbs,
//     train.seq_len (finetune.method for llm-finetune); metrics step_time [s] (steady-state median),
//     tokens_per_s, tokens_per_s_per_gpu, model_tflops_per_gpu and mfu where printed, steps [count]; sample_times
//     the steady-state step times;
//   collectives (all_reduce, all_gather, ... as the comm plugin names them): transport "nccl", world_size,
//     comm.dtype, comm.op, comm.placement; metrics size [B], count, time [s], algbw, busbw [GB/s], wrong; one row
//     per size and placement, field table_layout "nccl-tests";
//   serving (llm-inference): model, system, gpus, precision, parallel.tp/pp/ep, serve.isl, serve.osl,
//     serve.concurrency, serve.request_rate (serve.arrival burst for a rate of inf without a limit), serve.requests;
//     metrics ttft, tpot, itl, e2e_latency [s] (medians), their .p90/.p99 and .mean as printed (a mean is never
//     taken for a median), output_tokens_per_s, output_tokens_per_s_per_gpu, output_tokens_per_s_per_user,
//     requests_per_s. A file of several runs (benchmark reports pasted one after another) is refused.
// Every row has the fields source ("imported: <tool> <version>"), tool, tool_version (when printed), file
// ("PATH:FIRST-LAST", the lines read), timing (how the tool timed it) and, for series, steady_state ("median of
// 90 steps, 10 warm-up steps dropped").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// The tools import reads, by the name --format-of-input / messages use: "nemo", "megatron-lm", "torchtitan",
/// "mlperf", "nccl-tests", "aiperf", "genai-perf", "sglang-bench", "vllm-bench", "trtllm-bench".
std::vector<std::string> import_formats();

/// The rows of one file's text; `origin` names it in errors and in the rows' `file` field; `sets` are --set
/// KEY=VALUE entries (typed as the command line types them) for what the file does not print, and a --set that
/// contradicts the file (a GPU count, a model) is an error naming both. A usage failure (exit code 2) for an
/// empty, binary, unknown or truncated file (naming the line), a run with no steady state (a crashed run), several
/// runs in one file, or a missing key.
Expected<std::vector<ResultRow>> import_text(std::string_view text, const std::string& origin,
                                             const std::vector<std::string>& sets);

/// import_text of each file in turn (read as a regular file of bounded size) into one report whose context says
/// what was imported; the first failure ends it.
Expected<Report> import_files(const std::vector<std::string>& paths, const std::vector<std::string>& sets);

}  // namespace dgx
