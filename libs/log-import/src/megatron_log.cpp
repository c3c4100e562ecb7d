// Megatron-LM's log (megatron/training/training.py, training_log; Megatron-Bridge logs the same lines): the
// argument block it prints at start-up gives the configuration,
//   ------------------------ arguments ------------------------
//     tensor_model_parallel_size ...................... 4
//   -------------------- end of arguments ---------------------
// and each logging interval one line with the step time averaged over the interval:
//    iteration       10/     100 | consumed samples: 1280 | elapsed time per iteration (ms): 1234.5 |
//    throughput per GPU (TFLOP/s/GPU): 456.7 | ... | global batch size:   128 | ...
// Forks print the same line: AMD Primus as "current/average" (`elapsed time per iteration (ms): 92809.9/268751.1`,
// the first value is the interval's own), EPFL's Megatron-LLM without the throughput, Megatron-Bridge with MoE and
// MTP losses. Launcher and logger prefixes are taken off before (launcher_output.hpp).
#include <map>

#include "catalog_names.hpp"
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

constexpr std::string_view kIterationTime = "elapsed time per iteration (ms)";

// Megatron's integer arguments and the catalog keys they are.
const std::map<std::string, std::string, std::less<>>& integer_arguments() {
  static const std::map<std::string, std::string, std::less<>> keys = {
      {"tensor_model_parallel_size", "parallel.tp"},
      {"pipeline_model_parallel_size", "parallel.pp"},
      {"context_parallel_size", "parallel.cp"},
      {"expert_model_parallel_size", "parallel.ep"},
      {"virtual_pipeline_model_parallel_size", "parallel.vp"},
      {"micro_batch_size", "train.mbs"},
      {"global_batch_size", "train.gbs"},
      {"seq_length", "train.seq_len"},
      {"world_size", "gpus"},
  };
  return keys;
}

// "  name ........ value" -> {name, value}.
std::optional<std::pair<std::string, std::string>> argument(std::string_view line) {
  line = trim(line);
  const std::size_t dots = line.find(" ..");
  if (dots == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view value = line.substr(dots);
  while (!value.empty() && (value.front() == '.' || value.front() == ' ')) {
    value.remove_prefix(1);
  }
  return std::make_pair(std::string(trim(line.substr(0, dots))), std::string(trim(value)));
}

bool is_none(const std::string& v) { return v.empty() || v == "None" || v == "False"; }

struct Arguments {
  std::map<std::string, std::pair<std::string, int>, std::less<>> values;  // name -> value, line
  [[nodiscard]] const std::string* find(std::string_view name) const {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second.first;
  }
  [[nodiscard]] int line(std::string_view name) const {
    const auto it = values.find(name);
    return it == values.end() ? 0 : it->second.second;
  }
};

// bf16 unless a narrower format is on: --fp4 (nvfp4), --fp8-recipe mxfp8, --fp8 (hybrid/e4m3).
void read_precision(const Arguments& args, ParsedRun& run) {
  const std::string* fp4 = args.find("fp4");
  const std::string* fp8 = args.find("fp8");
  const std::string* recipe = args.find("fp8_recipe");
  const std::string* bf16 = args.find("bf16");
  if (fp4 != nullptr && !is_none(*fp4)) {
    run.set("precision", "nvfp4", args.line("fp4"));
  } else if (fp8 != nullptr && !is_none(*fp8)) {
    run.set("precision", recipe != nullptr && *recipe == "mxfp8" ? "mxfp8" : "fp8", args.line("fp8"));
  } else if (bf16 != nullptr && *bf16 == "True") {
    run.set("precision", "bf16", args.line("bf16"));
  }
}

// What decides whether a layout fits: activation recompute (recompute_granularity selective|full, None = off) and the
// distributed optimizer (ZeRO-1 over the data-parallel ranks).
void read_memory_choices(const Arguments& args, ParsedRun& run) {
  if (const std::string* granularity = args.find("recompute_granularity")) {
    run.set("train.recompute", is_none(*granularity) ? std::string("none") : *granularity,
            args.line("recompute_granularity"));
  }
  if (const std::string* zero = args.find("use_distributed_optimizer")) {
    run.set("train.distributed_optimizer", *zero == "True", args.line("use_distributed_optimizer"));
  }
}

// Megatron-LM prints no model name, only its architecture: the catalog model that has it, when exactly one does
// (several releases of a family can share one, and then the user says which).
void read_architecture(const Arguments& args, ParsedRun& run) {
  auto number = [&](const char* name) -> long {
    const std::string* v = args.find(name);
    const auto n = v != nullptr && !is_none(*v) ? parse_number(*v) : std::nullopt;
    return n ? static_cast<long>(*n) : 0;
  };
  Architecture a;
  a.layers = number("num_layers");
  a.hidden = number("hidden_size");
  a.ffn = number("ffn_hidden_size");
  a.heads = number("num_attention_heads");
  const std::string* gqa = args.find("group_query_attention");
  a.kv_groups = gqa != nullptr && *gqa == "True" ? number("num_query_groups") : a.heads;
  const std::string* experts = args.find("num_experts");
  a.experts = experts != nullptr && !is_none(*experts) ? number("num_experts") : (experts != nullptr ? 1 : 0);
  if (a.layers == 0 || a.hidden == 0) {
    return;
  }
  run.model_candidates = models_of_architecture(a);
  std::string described = std::to_string(a.layers) + " layers, hidden " + std::to_string(a.hidden);
  for (const auto& [what, value] : {std::pair{"ffn ", a.ffn}, std::pair{"heads ", a.heads},
                                    std::pair{"KV groups ", a.kv_groups}, std::pair{"experts ", a.experts}}) {
    if (value != 0) {
      described += ", " + std::string(what) + std::to_string(value);
    }
  }
  if (run.model_candidates.size() == 1) {
    run.printed_model = run.model_candidates.front();
    run.printed_model_line = args.line("num_layers");
    run.notes.push_back("model " + run.printed_model + ": the catalog's only model of this architecture (" + described +
                        ")");
  } else {
    run.notes.push_back(
        "Megatron-LM prints no model name; the architecture (" + described + ") is " +
        (run.model_candidates.empty() ? std::string("no catalog model's") : "that of " + joined(run.model_candidates)));
  }
}

void read_arguments(const Arguments& args, ParsedRun& run) {
  for (const auto& [name, key] : integer_arguments()) {
    const std::string* v = args.find(name);
    if (v == nullptr || is_none(*v)) {
      continue;
    }
    if (auto n = parse_number(*v)) {
      run.set(key, static_cast<std::int64_t>(*n), args.line(name));
    }
  }
  const std::string* per_stage = args.find("num_layers_per_virtual_pipeline_stage");
  const std::string* layers = args.find("num_layers");
  const json::Value* pp = run.config.find("parallel.pp");
  if (!run.config.contains("parallel.vp") && per_stage != nullptr && !is_none(*per_stage) && layers != nullptr &&
      pp != nullptr) {
    const auto l = parse_number(*layers);
    const auto s = parse_number(*per_stage);
    const auto vp =
        l && s && *s > 0 && pp->is_number() && pp->as_number() > 0 ? as_count(*l / pp->as_number() / *s) : std::nullopt;
    if (vp && *vp >= 1) {
      run.set("parallel.vp", *vp, args.line("num_layers_per_virtual_pipeline_stage"));
    }
  }
  read_architecture(args, run);
  read_precision(args, run);
  read_memory_choices(args, run);
}

std::optional<Failure> read_iteration(const Line& line, ParsedRun& run, double& last_iteration,
                                      const std::string& origin) {
  const auto ms = number_after(line.text, kIterationTime);
  const auto iteration = number_after(line.text, "iteration");
  if (!ms || !iteration) {
    return bad_input(origin, line.number, "an iteration line without its elapsed time (a line cut short?)");
  }
  if (*iteration == last_iteration) {
    return std::nullopt;  // the same iteration again: several ranks printing it without a prefix to tell them apart
  }
  if (*iteration < last_iteration) {
    return bad_input(origin, line.number,
                     "two runs in one file: the iterations restart at " +
                         std::to_string(static_cast<long long>(*iteration)) + "; import one run per file");
  }
  last_iteration = *iteration;
  if (auto gbs = number_after(line.text, "global batch size")) {
    if (auto problem = run.agree("train.gbs", static_cast<std::int64_t>(*gbs), line.number, origin)) {
      return problem;
    }
  }
  run.series.push_back(*ms * 1e-3);
  run.steps.push_back(static_cast<long>(*iteration));
  if (auto tflops = number_after(line.text, "throughput per GPU (TFLOP/s/GPU)")) {
    run.tflops.push_back(*tflops);
  }
  run.last_line = line.number;
  if (run.first_line == 0) {
    run.first_line = line.number;
  }
  return std::nullopt;
}

}  // namespace

bool looks_like_megatron(std::string_view text) {
  return text.find(kIterationTime) != std::string_view::npos ||
         text.find("------------------------ arguments ------------------------") != std::string_view::npos;
}

Expected<ParsedRun> parse_megatron_log(LineSource& lines, const std::string& origin) {
  ParsedRun run;
  run.tool = "megatron-lm";
  run.kind = RunKind::training;
  run.workload = "llm-pretrain";
  run.timing = "Megatron-LM's elapsed time per iteration: the wall time of each logging interval over its iterations";
  Arguments args;
  int blocks = 0;
  bool in_block = false;
  double last_iteration = 0;
  const auto stopped = for_each_line(lines, [&](const Line& line) -> std::optional<Failure> {
    if (line.text.find("end of arguments") != std::string_view::npos) {
      in_block = false;
    } else if (line.text.find("-- arguments --") != std::string_view::npos) {
      if (++blocks > 1) {
        return bad_input(origin, line.number, "two runs in one file: a second argument block; import one run per file");
      }
      in_block = true;
      run.first_line = line.number;
    } else if (in_block) {
      if (auto a = argument(line.text)) {
        args.values[a->first] = {a->second, line.number};
      }
    } else if (line.text.find(kIterationTime) != std::string_view::npos) {
      return read_iteration(line, run, last_iteration, origin);
    }
    return std::nullopt;
  });
  if (stopped) {
    return *stopped;
  }
  const json::Value gbs_printed = run.config.contains("train.gbs") ? run.config.at("train.gbs") : json::Value();
  const int gbs_line = run.line_of["train.gbs"];
  run.config = json::Object();
  run.line_of.clear();
  read_arguments(args, run);
  if (!gbs_printed.is_null()) {
    if (auto problem = run.agree("train.gbs", gbs_printed, gbs_line, origin)) {
      return *problem;
    }
  }
  return run;
}

}  // namespace dgx::logs
