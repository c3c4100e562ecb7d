#include "launch_files.hpp"

#include <array>
#include <optional>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>
#include <dgx/sdk/toml_literal.hpp>

#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_explorer.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_inference {

namespace {

namespace text = dgx::sdk::text;

struct Checkpoint {
  const char* name;
  const char* bf16;
  const char* fp8;
  const char* nvfp4;
};

constexpr std::array<Checkpoint, 7> kCheckpoints{{
    {"llama3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "nvidia/Llama-3.1-8B-Instruct-FP8",
     "nvidia/Llama-3.1-8B-Instruct-FP4"},
    {"llama3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", "nvidia/Llama-3.1-70B-Instruct-FP8",
     "nvidia/Llama-3.1-70B-Instruct-FP4"},
    {"llama3.3-70b", "meta-llama/Llama-3.3-70B-Instruct", "nvidia/Llama-3.3-70B-Instruct-FP8",
     "nvidia/Llama-3.3-70B-Instruct-FP4"},
    {"llama3.1-405b", "meta-llama/Llama-3.1-405B-Instruct", "nvidia/Llama-3.1-405B-Instruct-FP8",
     "nvidia/Llama-3.1-405B-Instruct-FP4"},
    {"deepseek-v3", "deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "nvidia/DeepSeek-V3-0324-FP4"},
    {"deepseek-r1", "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1", "nvidia/DeepSeek-R1-FP4"},
    {"mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1", "nvidia/Mixtral-8x7B-Instruct-v0.1-FP8",
     "mistralai/Mixtral-8x7B-Instruct-v0.1"},
}};

// A value a user chose (a checkpoint, a model's, a system's or a file's name) reaches the scripts as one shell word
// (text::shell_quote), the YAML and JSON as one double-quoted string, and comments as it is. None of them can carry
// a line break (it would end a comment or a YAML scalar), so such a value is refused, naming what it was.
std::string one_line(const std::string& what, const std::string& value) {
  if (const std::string problem = text::one_line_problem(value); !problem.empty()) {
    throw dgx::sdk::InvalidArgument("the launch files (--emit) cannot carry " + what + ": it holds " + problem);
  }
  return value;
}

// A checkpoint is an argument of the engine's and aiperf's command lines, where one beginning with '-' would be read
// as an option (`vllm serve --speculative-config ...`): refused, with the way to name such a folder.
std::string checkpoint_name(const std::string& what, const std::string& value) {
  std::string name = one_line(what, value);
  if (!name.empty() && name.front() == '-') {
    throw dgx::sdk::InvalidArgument("the launch files (--emit) cannot carry " + what + " '" + name +
                                    "': it begins with '-', which the engine's command line reads as an option "
                                    "(name a local folder ./" +
                                    name + ")");
  }
  return name;
}

std::string word(const std::string& value) { return text::shell_quote(value); }

// A TOML basic string of a one-line value is also a JSON string and a YAML double-quoted scalar: the same escapes
// (\" \\ \uXXXX), nothing else special inside the quotes.
std::string double_quoted(const std::string& value) { return dgx::sdk::toml_literal(value); }

std::string number(double value) { return text::fixed(value, value == static_cast<long long>(value) ? 0 : 3); }

/// The batch an engine must admit: the requests in flight per replica (decode worker).
int batch_size(const llm::ServeProjection& p) { return std::max(1, p.in_flight); }

std::string speculative_yaml(const llm::SpeculativeConfig& sp, const std::string& draft_model_dir) {
  if (!sp.active()) {
    return {};
  }
  std::string out = "speculative_config:\n";
  switch (sp.kind) {
  case llm::Speculation::mtp:
    out += "  decoding_type: MTP\n  num_nextn_predict_layers: " + std::to_string(sp.draft_tokens) + "\n";
    break;
  case llm::Speculation::eagle:
    out += "  decoding_type: Eagle3\n  max_draft_len: " + std::to_string(sp.draft_tokens) +
           "\n  speculative_model_dir: " + draft_model_dir + "\n";
    break;
  case llm::Speculation::draft:
    out += "  decoding_type: DraftTarget\n  max_draft_len: " + std::to_string(sp.draft_tokens) +
           "\n  speculative_model_dir: " + draft_model_dir + "\n";
    break;
  case llm::Speculation::none: break;
  }
  return out;
}

/// The draft model's checkpoint (speculative decoding with a draft model), else nothing: an EAGLE-3 head has no
/// catalog entry, and the files leave a placeholder for it.
std::optional<std::string> draft_checkpoint(const InferenceSettings& s) {
  const llm::SpeculativeConfig& sp = s.config.speculative;
  if (sp.kind == llm::Speculation::draft && sp.draft_model) {
    return checkpoint_name(
        "the draft model's checkpoint",
        default_checkpoint(one_line("the draft model's name", sp.draft_model->name), s.config.precision));
  }
  return std::nullopt;
}

std::string draft_model_dir_yaml(const InferenceSettings& s) {
  const auto draft = draft_checkpoint(s);
  return draft ? double_quoted(*draft) : "EAGLE3_DRAFT_HEAD  # the EAGLE-3 head trained for this checkpoint";
}

/// extra_llm_api_options of one TensorRT-LLM worker.
std::string trtllm_yaml(const InferenceSettings& s, const llm::ServeProjection& p, const llm::ServeLayout& layout,
                        int max_batch, bool speculative, const std::string& role) {
  const llm::ServeConfig& c = p.config;
  std::string out = "# extra_llm_api_options of " + role + ", written by dgxhost (" +
                    std::string(llm::serve_constants::kModelVersion) +
                    "): " + llm::describe_serve_point(p, c.layout.ep > 1 || layout.attention_dp) + "\n";
  out += "max_batch_size: " + std::to_string(max_batch) + "\n";
  out += "max_num_tokens: " + std::to_string(c.batch_tokens()) + "\n";
  out += std::string("enable_attention_dp: ") + (layout.attention_dp ? "true" : "false") + "\n";
  out += "kv_cache_config:\n  free_gpu_memory_fraction: " + number(c.kv_fraction()) + "\n  dtype: " +
         (c.kv_precision == llm::Precision::bf16 ? "auto" : std::string(llm::to_string(c.kv_precision))) + "\n";
  out += "cuda_graph_config:\n  enable_padding: true\n  max_batch_size: " +
         std::to_string(std::min(max_batch, c.cuda_graph_max_batch())) + "\n";
  if (speculative) {
    out += speculative_yaml(c.speculative, draft_model_dir_yaml(s));
  }
  return out;
}

std::string trtllm_command(const std::string& checkpoint, const llm::ServeLayout& l, int max_batch,
                           const llm::ServeConfig& c, const std::string& yaml, int port) {
  return "trtllm-serve " + word(checkpoint) + " --backend pytorch --host 0.0.0.0 --port " + std::to_string(port) +
         " \\\n  --tp_size " + std::to_string(l.tp) + " --pp_size " + std::to_string(l.pp) + " --ep_size " +
         std::to_string(l.ep) + " \\\n  --max_batch_size " + std::to_string(max_batch) + " --max_num_tokens " +
         std::to_string(c.batch_tokens()) + " --kv_cache_free_gpu_memory_fraction " + number(c.kv_fraction()) +
         " \\\n  --extra_llm_api_options " + yaml;
}

std::string vllm_speculative(const InferenceSettings& s) {
  const llm::SpeculativeConfig& sp = s.config.speculative;
  if (!sp.active()) {
    return {};
  }
  const std::string k = std::to_string(sp.draft_tokens);
  std::string json;
  switch (sp.kind) {
  case llm::Speculation::mtp: json = "{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": " + k + "}"; break;
  case llm::Speculation::eagle:
    json = "{\"method\": \"eagle3\", \"model\": \"EAGLE3_DRAFT_HEAD\", \"num_speculative_tokens\": " + k + "}";
    break;
  case llm::Speculation::draft:
    json = "{\"model\": " + double_quoted(draft_checkpoint(s).value_or("DRAFT_MODEL")) +
           ", \"num_speculative_tokens\": " + k + "}";
    break;
  case llm::Speculation::none: return {};
  }
  return " \\\n  --speculative-config " + word(json);
}

std::string vllm_command(const InferenceSettings& s, const std::string& checkpoint, const llm::ServeLayout& l,
                         int max_batch, int port, const std::string& extra) {
  const llm::ServeConfig& c = s.config;
  // Attention DP in vLLM: data-parallel ranks of TP 1 with the experts spread over all of them.
  const std::string parallel =
      l.attention_dp
          ? "--data-parallel-size " + std::to_string(l.tp) + " --tensor-parallel-size 1"
          : "--tensor-parallel-size " + std::to_string(l.tp) + " --pipeline-parallel-size " + std::to_string(l.pp);
  return "vllm serve " + word(checkpoint) + " --host 0.0.0.0 --port " + std::to_string(port) + " \\\n  " + parallel +
         (l.ep > 1 ? " --enable-expert-parallel" : "") + " \\\n  --max-num-seqs " + std::to_string(max_batch) +
         " --max-num-batched-tokens " + std::to_string(c.batch_tokens()) + " --gpu-memory-utilization " +
         number(std::min(0.95, 0.05 + c.kv_fraction())) + " --kv-cache-dtype " +
         (c.kv_precision == llm::Precision::bf16 ? "auto" : std::string(llm::to_string(c.kv_precision))) +
         vllm_speculative(s) + extra;
}

/// SGLang's speculative flags: EAGLE / EAGLE-3 heads, NextN (the MTP module, which SGLang runs as EAGLE), a
/// standalone draft model; steps = draft tokens, one candidate per step.
std::string sglang_speculative(const InferenceSettings& s) {
  const llm::SpeculativeConfig& sp = s.config.speculative;
  if (!sp.active()) {
    return {};
  }
  const std::string k = std::to_string(sp.draft_tokens);
  std::string algorithm;
  std::string draft;
  switch (sp.kind) {
  case llm::Speculation::mtp: algorithm = "NEXTN"; break;
  case llm::Speculation::eagle:
    algorithm = "EAGLE3";
    draft = " --speculative-draft-model-path " + word(draft_checkpoint(s).value_or("EAGLE3_DRAFT_HEAD"));
    break;
  case llm::Speculation::draft:
    algorithm = "STANDALONE";
    draft = " --speculative-draft-model-path " + word(draft_checkpoint(s).value_or("DRAFT_MODEL"));
    break;
  case llm::Speculation::none: return {};
  }
  return " \
  --speculative-algorithm " +
         algorithm + " --speculative-num-steps " + k + " --speculative-eagle-topk 1 --speculative-num-draft-tokens " +
         std::to_string(sp.draft_tokens + 1) + draft;
}

/// python3 -m sglang.launch_server: attention DP as --dp with --enable-dp-attention inside the TP group, experts
/// over --ep-size; the token budget is the chunked-prefill size.
std::string sglang_command(const InferenceSettings& s, const std::string& checkpoint, const llm::ServeLayout& l,
                           int max_batch, int port, const std::string& extra) {
  const llm::ServeConfig& c = s.config;
  std::string parallel = "--tp-size " + std::to_string(l.tp) + " --pp-size " + std::to_string(l.pp);
  if (l.attention_dp) {
    parallel += " --dp-size " + std::to_string(l.tp) + " --enable-dp-attention";
  }
  if (l.ep > 1) {
    parallel += " --ep-size " + std::to_string(l.ep);
  }
  return "python3 -m sglang.launch_server --model-path " + word(checkpoint) + " --host 0.0.0.0 --port " +
         std::to_string(port) + " \
  " + parallel +
         " \
  --max-running-requests " +
         std::to_string(max_batch) + " --chunked-prefill-size " + std::to_string(c.batch_tokens()) +
         " --mem-fraction-static " + number(std::min(0.95, 0.05 + c.kv_fraction())) +
         (c.kv_precision == llm::Precision::bf16 ? std::string() : " --kv-cache-dtype fp8_e4m3") +
         sglang_speculative(s) + extra;
}

std::string aiperf_command(const InferenceSettings& s, const std::string& checkpoint, const llm::ServeProjection& p,
                           int fleet_replicas) {
  const llm::ServeConfig& c = p.config;
  std::string load;
  int requests = c.requests;
  if (fleet_replicas > 1 || (s.fleet_rate > 0 && !p.open_loop)) {
    // The fleet's rate, Poisson as the fleet's users arrive, at its one endpoint.
    load = "--request-rate " + number(s.fleet_rate);
    requests = requests > 0 ? requests : std::max(1000, static_cast<int>(std::lround(60 * s.fleet_rate)));
  } else if (p.open_loop) {
    load = c.arrival == llm::Arrival::burst ? "--concurrency " + std::to_string(std::max(1, c.requests))
                                            : "--request-rate " + number(c.request_rate);
    requests = requests > 0 ? requests : 1000;
  } else {
    const int concurrency = p.offline ? p.in_flight : c.concurrency;
    const int replicas = p.disaggregation ? p.disaggregation->decode_workers : 1;
    load = "--concurrency " + std::to_string(concurrency * replicas);
    requests = requests > 0 ? requests : std::max(100, 10 * concurrency * replicas);
  }
  std::string out =
      "#!/usr/bin/env bash\n# Measures the endpoint the engine's server opened, as dgxhost projected it: ISL " +
      std::to_string(c.isl) + " / OSL " + std::to_string(c.osl) + ", " + load.substr(2) +
      ", SLOs as goodput. TTFT, ITL (= TPOT) and throughput compare 1:1 with the projection's "
      "ttft, tpot, output_tokens_per_s.\n";
  if (fleet_replicas > 1) {
    out += "# The fleet: " + std::to_string(fleet_replicas) +
           " replicas of the server script behind one load balancer on port 8000, each on GPUs of its own, carry " +
           number(s.fleet_rate) + " requests/s together.\n";
  }
  if (c.lengths) {
    out += "# The projection drew lengths from " + one_line("the lengths file's name", c.lengths->source) +
           "; AIPerf's synthetic lengths below are its means (or replay the same trace with --input-file).\n";
  }
  out += "aiperf profile --model " + word(checkpoint) + " --tokenizer " + word(checkpoint) +
         " \\\n  --url http://localhost:8000 --endpoint-type chat --streaming \\\n  --synthetic-input-tokens-mean " +
         std::to_string(c.isl) + " --synthetic-input-tokens-stddev " + number(c.isl_stdev) +
         " \\\n  --output-tokens-mean " + std::to_string(c.osl) + " --output-tokens-stddev " + number(c.osl_stdev) +
         " --extra-inputs ignore_eos:true \\\n  " + load + " --request-count " + std::to_string(requests) +
         " --random-seed 1";
  std::string goodput;
  if (s.slo.ttft > 0) {
    goodput += "time_to_first_token:" + number(s.slo.ttft * 1e3);
  }
  if (s.slo.tpot > 0) {
    goodput += std::string(goodput.empty() ? "" : " ") + "inter_token_latency:" + number(s.slo.tpot * 1e3);
  }
  if (!goodput.empty()) {
    out += " \\\n  --goodput \"" + goodput + "\"";
  }
  return out + "\n";
}

// "CUDA_VISIBLE_DEVICES=4,5,6,7 ": the next `count` GPUs for one worker, so that the workers of a disaggregated
// deployment start on GPUs of their own; indices count on past one node's GPUs (restart them on the next node).
std::string devices(int& next, int count) {
  std::string list;
  for (int i = 0; i < count; ++i, ++next) {
    list += (i == 0 ? "" : ",") + std::to_string(next);
  }
  return "CUDA_VISIBLE_DEVICES=" + list + " ";
}

int worker_gpus(const llm::ServeLayout& l) { return l.tp * l.pp; }

void sglang_files(LaunchFiles& f, const InferenceSettings& s, const std::string& ckpt, const llm::ServeProjection& p,
                  const std::string& header) {
  std::string script = header;
  if (!p.disaggregation) {
    script += sglang_command(s, ckpt, p.config.layout, batch_size(p), 8000, "") + "\n";
    f.files.emplace_back("sglang-serve.sh", script);
    return;
  }
  const llm::ServeDisaggregation& d = *p.disaggregation;
  script += "# " + std::to_string(d.prefill_workers) + " prefill and " + std::to_string(d.decode_workers) +
            " decode servers, each on GPUs of its own, then SGLang's router in PD mode on port 8000.\nset -e\n";
  std::string router = "python3 -m sglang_router.launch_router --pd-disaggregation --host 0.0.0.0 --port 8000";
  int port = 8001;
  int gpu = 0;
  const std::string transfer = " \\\n  --disaggregation-transfer-backend nixl --disaggregation-mode ";
  for (int i = 0; i < d.prefill_workers; ++i, ++port) {
    script +=
        devices(gpu, worker_gpus(d.prefill_layout)) +
        sglang_command(s, ckpt, d.prefill_layout, std::max(1, d.prompts_per_iteration), port, transfer + "prefill") +
        " &\n";
    router += " \\\n  --prefill http://localhost:" + std::to_string(port);
  }
  for (int i = 0; i < d.decode_workers; ++i, ++port) {
    script += devices(gpu, worker_gpus(p.config.layout)) +
              sglang_command(s, ckpt, p.config.layout, batch_size(p), port, transfer + "decode") + " &\n";
    router += " \\\n  --decode http://localhost:" + std::to_string(port);
  }
  f.files.emplace_back("sglang-serve.sh", script + router + "\n");
}

void trtllm_disaggregated(LaunchFiles& f, const InferenceSettings& s, const std::string& ckpt,
                          const llm::ServeProjection& p) {
  const llm::ServeDisaggregation& d = *p.disaggregation;
  const int prefill_batch = std::max(1, d.prompts_per_iteration);
  f.files.emplace_back("trtllm-serve.sh", "");  // filled below, first in the list
  f.files.emplace_back("ctx_extra_llm_api_options.yaml",
                       trtllm_yaml(s, p, d.prefill_layout, prefill_batch, false, "a context (prefill) worker") +
                           "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: DEFAULT\n");
  f.files.emplace_back("gen_extra_llm_api_options.yaml",
                       trtllm_yaml(s, p, p.config.layout, batch_size(p), true, "a generation (decode) worker") +
                           "cache_transceiver_config:\n  backend: DEFAULT\n");
  std::string config = "# trtllm-serve disaggregated -c disagg_config.yaml: the router over " +
                       std::to_string(d.prefill_workers) + " context and " + std::to_string(d.decode_workers) +
                       " generation workers (written by dgxhost)\nhostname: localhost\nport: 8000\nbackend: "
                       "pytorch\ncontext_servers:\n  num_instances: " +
                       std::to_string(d.prefill_workers) + "\n  urls:\n";
  std::string script = "#!/usr/bin/env bash\n# " + llm::describe_serve_point(p, p.config.layout.ep > 1) +
                       ": each worker starts on GPUs of its own (CUDA_VISIBLE_DEVICES), then the router.\nset -e\n";
  int port = 8001;
  int gpu = 0;
  for (int i = 0; i < d.prefill_workers; ++i, ++port) {
    config += "    - \"localhost:" + std::to_string(port) + "\"\n";
    script += devices(gpu, worker_gpus(d.prefill_layout)) +
              trtllm_command(ckpt, d.prefill_layout, prefill_batch, p.config, "ctx_extra_llm_api_options.yaml", port) +
              " &\n";
  }
  config += "generation_servers:\n  num_instances: " + std::to_string(d.decode_workers) + "\n  urls:\n";
  for (int i = 0; i < d.decode_workers; ++i, ++port) {
    config += "    - \"localhost:" + std::to_string(port) + "\"\n";
    script += devices(gpu, worker_gpus(p.config.layout)) +
              trtllm_command(ckpt, p.config.layout, batch_size(p), p.config, "gen_extra_llm_api_options.yaml", port) +
              " &\n";
  }
  script += "trtllm-serve disaggregated -c disagg_config.yaml\n";
  f.files.front().second = script;
  f.files.emplace_back("disagg_config.yaml", config);
}

}  // namespace

const std::string* LaunchFiles::find(const std::string& name) const {
  for (const auto& [file, text] : files) {
    if (file == name) {
      return &text;
    }
  }
  return nullptr;
}

std::string default_checkpoint(const std::string& name, llm::Precision precision) {
  for (const Checkpoint& c : kCheckpoints) {
    if (name == c.name) {
      return precision == llm::Precision::bf16 ? c.bf16 : precision == llm::Precision::nvfp4 ? c.nvfp4 : c.fp8;
    }
  }
  return name;
}

LaunchFiles launch_files(const InferenceSettings& s, const llm::workload::ServeAssumptions& a,
                         const llm::ServeProjection& p, int replicas) {
  const std::string ckpt = checkpoint_name(
      s.checkpoint.empty() ? "the model's name (" + std::string(key::model) + ")" : std::string(key::checkpoint),
      s.checkpoint.empty() ? default_checkpoint(s.model, p.config.precision) : s.checkpoint);
  LaunchFiles f;
  std::string header = "#!/usr/bin/env bash\n# " + one_line("the model's name", a.model.name) + " on " +
                       one_line("the system's name", a.system.name) + ": " +
                       llm::describe_serve_point(p, a.model.moe()) + " (projected by dgxhost, " +
                       llm::serve_constants::kModelVersion + ")\n";
  if (replicas > 1) {
    header += "# One replica of a fleet of " + std::to_string(replicas) + " (" + std::to_string(replicas * p.gpus()) +
              " GPUs): start it on each replica's GPUs and put one load balancer in front of them.\n";
  }
  if (s.config.engine == llm::ServeEngine::vllm) {
    std::string script = header;
    if (p.disaggregation) {
      const llm::ServeDisaggregation& d = *p.disaggregation;
      const std::string kv = " \\\n  --kv-transfer-config '{\"kv_connector\": \"NixlConnector\", \"kv_role\": "
                             "\"kv_both\"}'";
      script += "# " + std::to_string(d.prefill_workers) + " prefill and " + std::to_string(d.decode_workers) +
                " decode instances, each on its own GPUs; put your P/D proxy in front of them on port 8000.\n";
      int port = 8001;
      int gpu = 0;
      for (int i = 0; i < d.prefill_workers; ++i) {
        script += devices(gpu, worker_gpus(d.prefill_layout)) +
                  vllm_command(s, ckpt, d.prefill_layout, std::max(1, d.prompts_per_iteration), port++, kv) + " &\n";
      }
      for (int i = 0; i < d.decode_workers; ++i) {
        script += devices(gpu, worker_gpus(p.config.layout)) +
                  vllm_command(s, ckpt, p.config.layout, batch_size(p), port++, kv) + " &\n";
      }
      script += "wait\n";
    } else {
      script += vllm_command(s, ckpt, p.config.layout, batch_size(p), 8000, "") + "\n";
    }
    f.files.emplace_back("vllm-serve.sh", script);
  } else if (s.config.engine == llm::ServeEngine::sglang) {
    sglang_files(f, s, ckpt, p, header);
  } else if (p.disaggregation) {
    trtllm_disaggregated(f, s, ckpt, p);
  } else {
    f.files.emplace_back("trtllm-serve.sh", header +
                                                trtllm_command(ckpt, p.config.layout, batch_size(p), p.config,
                                                               "extra_llm_api_options.yaml", 8000) +
                                                "\n");
    f.files.emplace_back("extra_llm_api_options.yaml",
                         trtllm_yaml(s, p, p.config.layout, batch_size(p), true, "the replica"));
  }
  f.files.emplace_back("aiperf.sh", aiperf_command(s, ckpt, p, replicas));
  return f;
}

std::uint32_t launch_file_mode(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".sh") == 0 ? 0755 : 0644;
}

}  // namespace dgx::plugins::llm_inference
