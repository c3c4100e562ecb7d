// dgxhost import: the logs and result files of the tools people already run (NeMo / Megatron-Bridge, Megatron-LM,
// torchtitan, MLPerf Training's MLLOG, MLPerf Inference's loadgen logs, nccl-tests, AIPerf, GenAI-Perf, SGLang's and
// vLLM's benchmarks, trtllm-bench), read into dgx.results/1 rows of mode measured, each labelled with the tool that
// measured it ("measured (imported: torchtitan)"). One parser per format (core/src/import/<format>.cpp; GenAI-Perf's
// table is AIPerf's, in aiperf.cpp, and SGLang's report vLLM's, serving_result.cpp); what the file prints is read
// from it, what it does not comes from --set, and nothing is guessed: a key a row needs and the file lacks is an
// error naming the key and the --set that supplies it.
//
// The rows use the configuration keys of the workload that would have run them, so `dgxhost verdict` can project
// exactly that configuration:
//   training (llm-pretrain; llm-finetune for fine-tuning runs such as MLPerf's LoRA benchmark): model, system,
//     framework (when known), gpus, precision, parallel.tp/pp/cp/vp/ep, parallel.fsdp, train.mbs, train.gbs,
//     train.seq_len (finetune.method for llm-finetune); metrics step_time [s] (steady-state median),
//     tokens_per_s, tokens_per_s_per_gpu, model_tflops_per_gpu and mfu where printed, steps [count]; sample_times
//     the steady-state step times; MLPerf Training adds time_to_train [min] (run_start to run_stop), the one
//     metric of a log without tracked_stats;
//   collectives (all_reduce, all_gather, ... as the comm plugin names them): transport "nccl", world_size,
//     comm.dtype, comm.op, comm.placement; metrics size [B], count, time [s], algbw, busbw [GB/s], wrong; one row
//     per size and placement, field table_layout "nccl-tests";
//   serving (llm-inference): model, system, gpus, precision, parallel.tp/pp/ep, serve.isl, serve.osl,
//     serve.concurrency, serve.request_rate (serve.arrival burst for a rate of inf without a limit), serve.requests;
//     metrics ttft, tpot, itl, e2e_latency [s] (medians), their .p90/.p99 and .mean as printed (a mean is never
//     taken for a median), output_tokens_per_s, output_tokens_per_s_per_gpu, output_tokens_per_s_per_user,
//     requests_per_s; a file of several runs (benchmark reports pasted one after another) is refused; MLPerf
//     Inference: samples_per_s (the scenario's result; scheduled_/completed_samples_per_s the other rate), latency
//     [s] (loadgen's query latency, .p90 a SingleStream result) and mlperf.scenario/mode/result/sut as printed.
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
/// "mlperf", "mlperf-inference", "nccl-tests", "aiperf", "genai-perf", "sglang-bench", "vllm-bench", "trtllm-bench".
std::vector<std::string> import_formats();

/// The rows of one file's text; `origin` names it in errors and in the rows' `file` field; `sets` are --set
/// KEY=VALUE entries (typed as the command line types them) for what the file does not print, and a --set that
/// contradicts the file (a GPU count, a model) is an error naming both. A usage failure (exit code 2) for an
/// empty, binary, unknown or truncated file (naming the line), a run with no steady state (a crashed run), several
/// runs in one file, or a missing key.
Expected<std::vector<ResultRow>> import_text(std::string_view text, const std::string& origin,
                                             const std::vector<std::string>& sets);

/// What a file says by itself, before any --set: what `dgxhost import --inspect` prints, and what a user needs to
/// see when the import asks for keys. `values` are the headline numbers a careful reader computes from the file
/// alone, in the rows' metric names and units: a training log's steady-state step_time [s],
/// tokens_per_s_per_gpu or samples_per_s (as the tool logs it) and MLPerf's time_to_train [min]; a collective's busbw
/// and algbw [GB/s] at its largest message size (out-of-place unless only in-place is printed); a serving
/// benchmark's summary (output_tokens_per_s, ttft, tpot, ...). A series of fewer steps than a row needs is still
/// read (`steady_state` says how many steps were used, `notes` that it is no steady state).
struct LogReading {
  std::string tool;     // "torchtitan", as import_formats() names it
  std::string version;  // as printed; empty when the file does not say
  std::string kind;     // "training", "collective" or "serving"
  std::string workload;
  std::string timing;        // how the tool timed what it printed
  std::string lines;         // "FIRST-LAST": the lines read
  std::string steady_state;  // series only: "median of 9 steps, 1 warm-up step dropped"
  std::vector<Metric> values;
  std::vector<Field> printed;  // the configuration the file prints, with its line ("parallel.tp", "8 (line 4)")
  std::vector<std::string> notes;
};

/// The LogReading of one file's text; `sets` may hold import.warmup=N (other keys are ignored here). A usage
/// failure for what import_text refuses before --set matters: no log, no known format, a truncated or crashed run.
Expected<LogReading> inspect_text(std::string_view text, const std::string& origin,
                                  const std::vector<std::string>& sets = {});

/// inspect_text of a file read as a regular file of bounded size.
Expected<LogReading> inspect_file(const std::string& path, const std::vector<std::string>& sets = {});

/// import_text of each file in turn (read as a regular file of bounded size) into one report whose context says
/// what was imported; the first failure ends it.
Expected<Report> import_files(const std::vector<std::string>& paths, const std::vector<std::string>& sets);

}  // namespace dgx
