#include "dgx/llm/workload/declarations.hpp"

#include <utility>

#include "dgx/llm/kernels/metrics.hpp"

namespace dgx::llm::workload {

namespace {

using dgx::sdk::ChartSpec;
using dgx::sdk::MetricSpec;
using dgx::sdk::ResultMode;

void append(std::vector<MetricSpec>& to, std::vector<MetricSpec> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

std::vector<MetricSpec> training_metrics(RunTime run_time) {
  std::vector<MetricSpec> m{
      MetricSpec::lower("step_time", "s", "one training step: compute, exposed communication, bubble, optimizer")
          .with_label("step"),
      MetricSpec::higher("tokens_per_s", "tokens/s", "seq_len x global batch / step time"),
      MetricSpec::higher("tokens_per_s_per_gpu", "tokens/s", "tokens/s / GPUs").with_label("tok/s/GPU"),
      MetricSpec::higher("model_tflops_per_gpu", "TFLOP/s", "model FLOPs of a step / step time / GPUs")
          .with_label("TFLOP/s/GPU"),
      MetricSpec::higher("mfu", "%", "model TFLOP/s per GPU / the dense peak of the row's precision")
          .with_label("MFU %"),
      MetricSpec::neutral("memory_per_gpu", "B", "weights, gradients, optimizer states, activations per GPU"),
      MetricSpec::lower("gpu_hours", "GPU-h", "GPUs x time to train").with_label("GPU-h"),
      MetricSpec::lower("cost_usd", "USD", "GPU-hours x the price per GPU-hour").with_label("cost $"),
      MetricSpec::neutral("dp", "count", "data-parallel replicas"),
      MetricSpec::neutral("microbatches", "count", "micro-batches per step and pipeline"),
      MetricSpec::lower("breakdown.*", "s",
                        "a part of the step: compute, exposed TP/CP/EP/PP/DP communication, bubble, optimizer"),
      MetricSpec::neutral("memory.*", "B", "a part of the memory per GPU"),
      MetricSpec::neutral("accuracy_band", "%", "the accuracy the calibration supports for the projection"),
      MetricSpec::neutral("model_flops_per_sequence", "FLOP", "model FLOPs of one sequence, forward and backward"),
      MetricSpec::neutral("layer.ops_measured", "count", "the layer's ops measured on this GPU"),
      MetricSpec::neutral("layer.ops_modelled", "count", "the layer's ops of the performance model"),
  };
  m.push_back(
      run_time == RunTime::days_to_train
          ? MetricSpec::lower("days_to_train", "days", "tokens to train / (tokens/s) / 86400").with_label("days")
          : MetricSpec::lower("hours_to_finetune", "h",
                              "the job's tokens / (tokens/s) / 3600, plus its fixed "
                              "time (start-up, checkpoints, evaluation)")
                .with_label("hours"));
  append(m, kernels::layer_metric_specs("layer."));  // measure mode's measured layer
  return m;
}

std::vector<ChartSpec> training_charts(RunTime run_time) {
  const bool days = run_time == RunTime::days_to_train;
  const std::string time = days ? "days_to_train" : "hours_to_finetune";
  const std::string what = days ? "Days to train" : "Hours to fine-tune";
  const std::string series = "series|precision";  // explore rows name their line in field "series"
  return {
      ChartSpec::lines(what + " against GPU count", "gpus", time)
          .by(series)
          .log_x()
          .log_y()
          .only(ResultMode::projected)
          .with_caption("The fastest layout that fits per GPU count and precision (projected)."),
      ChartSpec::lines("Cost against GPU count", "gpus", "cost_usd")
          .by(series)
          .log_x()
          .only(ResultMode::projected)
          .with_caption(std::string(days ? "Training" : "Fine-tuning") +
                        " cost at the assumed price per GPU-hour (projected)."),
      ChartSpec::lines(std::string("Pareto front: ") + (days ? "days" : "hours") + " against cost", "cost_usd", time)
          .by(series)
          .log_y()
          .pareto()
          .only(ResultMode::projected)
          .with_caption("No configuration on the front trains both faster and cheaper than another; the star is the "
                        "recommendation."),
  };
}

std::vector<MetricSpec> serving_metrics() {
  std::vector<MetricSpec> m{
      MetricSpec::lower("ttft", "s", "time to first token: queueing and prefill (median)").with_label("TTFT"),
      MetricSpec::lower("ttft.*", "s", "time to first token: a percentile or the mean"),
      MetricSpec::lower("tpot", "s", "time per output token after the first (median)").with_label("TPOT"),
      MetricSpec::lower("tpot.*", "s", "time per output token: a percentile or the mean"),
      MetricSpec::lower("itl", "s", "inter-token latency (median)"),
      MetricSpec::lower("itl.*", "s", "inter-token latency: a percentile or the mean"),
      MetricSpec::lower("e2e_latency", "s", "a request's end-to-end latency (median)").with_label("E2E"),
      MetricSpec::lower("e2e_latency.*", "s", "end-to-end latency: a percentile or the mean"),
      MetricSpec::neutral("request_rate", "1", "requests per second offered (open loop)").with_label("req/s"),
      MetricSpec::higher("saturation_rate", "1", "the request rate beyond which the queue grows"),
      MetricSpec::higher("requests_per_s", "1", "requests completed per second"),
      MetricSpec::higher("output_tokens_per_s", "tokens/s", "output tokens per second of a replica")
          .with_label("tok/s"),
      MetricSpec::higher("output_tokens_per_s_per_gpu", "tokens/s", "output tokens per second per GPU")
          .with_label("tok/s/GPU"),
      MetricSpec::higher("output_tokens_per_s_per_user", "tokens/s", "output tokens per second a user sees")
          .with_label("tok/s/user"),
      MetricSpec::higher("output_tokens_per_s_fleet", "tokens/s", "output tokens per second of all replicas"),
      MetricSpec::higher("mbu", "%", "memory bandwidth utilisation of the decode step").with_label("MBU %"),
      MetricSpec::higher("mfu", "%", "model FLOP utilisation").with_label("MFU %"),
      MetricSpec::lower("usd_per_million_output_tokens", "USD", "the price of a million output tokens")
          .with_label("$/Mtok"),
      MetricSpec::lower("queue_wait", "s", "time a request waits before its prefill"),
      MetricSpec::lower("kv_transfer", "s", "disaggregated: moving a request's KV cache to its decode worker"),
      MetricSpec::neutral("kv_bytes_per_request", "B", "a request's KV cache"),
      MetricSpec::neutral("prefill_utilisation", "%", "disaggregated: how busy the prefill workers are"),
      MetricSpec::neutral("kv_cache_tokens", "count", "tokens the KV cache holds"),
      MetricSpec::neutral("max_concurrency", "count", "requests the KV cache holds at once"),
      MetricSpec::neutral("in_flight", "count", "requests in flight per replica"),
      MetricSpec::neutral("replicas", "count", "replicas on the GPUs"),
      MetricSpec::neutral("gpus", "count", "GPUs of a replica"),
      MetricSpec::neutral("prefill_workers", "count", "disaggregated: prefill workers"),
      MetricSpec::neutral("decode_workers", "count", "disaggregated: decode workers"),
      MetricSpec::neutral("decode_batch", "count", "requests per decode iteration"),
      MetricSpec::neutral("prefill_tokens_per_iteration", "count", "prompt tokens per iteration (chunked prefill)"),
      MetricSpec::lower("decode_iteration.*", "s", "a part of one decode iteration"),
      MetricSpec::lower("chunk_iteration.*", "s", "one iteration with a prefill chunk"),
      MetricSpec::neutral("memory.*", "B", "a part of the memory per GPU"),
      MetricSpec::neutral("accuracy_band", "%", "the accuracy the calibration supports for the projection"),
      MetricSpec::lower("layer.decode_time", "s", "measured: one layer's decode iteration").with_label("decode iter"),
      MetricSpec::lower("layer.chunk_time", "s", "measured: one layer's iteration with a prefill chunk")
          .with_label("chunk iter"),
      MetricSpec::higher("layer.mbu", "%", "measured: the layer's memory bandwidth utilisation")
          .with_label("layer MBU %"),
      MetricSpec::neutral("layer.decode_batch", "count", "measured: requests per decode iteration"),
      MetricSpec::neutral("layer.context", "count", "measured: context tokens per request"),
      MetricSpec::neutral("layer.chunk_tokens", "count", "measured: prompt tokens of the chunk"),
      MetricSpec::neutral("layer.peak_memory", "B", "measured: peak device memory"),
  };
  return m;
}

}  // namespace

RowDeclarations training_declarations(RunTime run_time) {
  return {training_metrics(run_time),
          {"model", "system", "gpus", "precision", "parallel.*", "train.*"},
          training_charts(run_time)};
}

RowDeclarations serving_declarations() {
  return {serving_metrics(),
          {"model",
           "system",
           "gpus",
           "precision",
           "parallel.*",
           "serve.kv_precision",
           "serve.mode",
           "serve.prefill_tp",
           "serve.prefill_ep",
           "serve.prefill_workers",
           "serve.decode_workers",
           "serve.isl",
           "serve.osl",
           "serve.isl_stdev",
           "serve.osl_stdev",
           "serve.lengths",
           "serve.concurrency",
           "serve.request_rate",
           "serve.arrival",
           "serve.speculative",
           "serve.draft_tokens",
           "serve.draft_model",
           "serve.engine",
           "serve.engine_version",
           "serve.max_batch_tokens",
           "serve.max_batch_size",
           "serve.kv_cache_fraction"},
          {ChartSpec::lines("Throughput against per-user speed", "output_tokens_per_s_per_user",
                            "output_tokens_per_s_per_gpu")
               .by("table,pick|serving,precision")
               .with_caption("Each point one operating point (concurrency or batch), measured or projected as its "
                             "row says: the further up and right, the better. Aggregated and disaggregated "
                             "deployments are lines of their own; the explorer's pick is the point named 'pick'."),
           ChartSpec::lines("Latency: first token against each next token (p99)", "tpot.p99", "ttft.p99")
               .by("table,pick|serving,precision")
               .log_x()
               .log_y()
               .with_caption("Each operating point's TTFT against its TPOT at the 99th percentile, the statistic "
                             "the objectives hold (serve.slo.ttft, serve.slo.tpot; the red lines): the points below "
                             "and left of both meet them, but for an offline point, a batch job held to none.")}};
}

}  // namespace dgx::llm::workload
