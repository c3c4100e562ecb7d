// torchtitan's log (torchtitan/train.py, components/metrics.py): ANSI-coloured metric lines every log_freq steps,
//   [rank0]:[titan] ... - root - INFO - step: 10  loss:  7.9  memory: 34.1GiB(35.9%)  tps: 6,667  tflops: 386.1
//   mfu: 39.0%
// where tps is tokens per second per GPU (the rank's tokens over its non-data-parallel group), and the start-up
// lines that give the configuration: `Building <flavour> with TransformerModelArgs(...)`, `Building 2-D device mesh
// with ['dp_shard', 'tp'], [4, 2]`, `GPU capacity: NVIDIA H100 80GB HBM3 (0) with 79.10GiB memory`, `Training
// starts at step 1, with local batch size 2, global batch size 16, ..., sequence length 8192, ...`.
#include <algorithm>

#include "command_line.hpp"
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

bool is_metrics_line(std::string_view s) {
  return s.find("step:") != std::string_view::npos && s.find("tps:") != std::string_view::npos;
}

// "['dp_shard', 'tp'], [4, 2]" -> the named degrees; gpus is their product.
void read_mesh(std::string_view line, ParsedRun& run, int number) {
  const std::size_t names_at = line.find('[');
  const std::size_t sizes_at = line.find("], [");
  if (names_at == std::string_view::npos || sizes_at == std::string_view::npos) {
    return;
  }
  std::vector<std::string> names;
  for (std::string_view rest = line.substr(names_at, sizes_at - names_at); !rest.empty();) {
    const std::size_t open = rest.find('\'');
    const std::size_t close = open == std::string_view::npos ? open : rest.find('\'', open + 1);
    if (close == std::string_view::npos) {
      break;
    }
    names.emplace_back(rest.substr(open + 1, close - open - 1));
    rest.remove_prefix(close + 1);
  }
  for (const char* key : {"parallel.tp", "parallel.pp", "parallel.cp"}) {
    run.set(key, std::int64_t{1}, number);  // the mesh is the whole layout: a dimension it lacks is 1
  }
  std::string_view sizes = line.substr(sizes_at + 4);
  sizes = sizes.substr(0, sizes.find(']'));
  std::int64_t gpus = 1;
  for (const std::string& name : names) {
    const std::size_t comma = sizes.find(',');
    const auto n = parse_number(sizes.substr(0, comma));
    if (!n || *n < 1 || *n * static_cast<double>(gpus) > 1e7) {  // a mesh of no real job: a corrupted line
      return;
    }
    gpus *= static_cast<std::int64_t>(*n);
    const std::string key = name == "tp"   ? "parallel.tp"
                            : name == "pp" ? "parallel.pp"
                            : name == "cp" ? "parallel.cp"
                                           : "";
    if (!key.empty()) {
      run.set(key, static_cast<std::int64_t>(*n), number);
    }
    if (name == "dp_shard" && *n > 1) {
      run.set("parallel.fsdp", true, number);  // torchtitan shards data-parallel state with FSDP2 (fully_shard)
    }
    sizes = comma == std::string_view::npos ? std::string_view() : sizes.substr(comma + 1);
  }
  run.set("gpus", gpus, number);
}

// Newer torchtitan: "Building device mesh with parallelism: pp=1, dp_replicate=1, dp_shard=8, cp=1, tp=1, ep=1".
void read_parallelism(std::string_view line, ParsedRun& run, int number) {
  std::int64_t gpus = 1;
  for (const auto& [name, key] :
       {std::pair{"pp=", "parallel.pp"}, std::pair{"dp_replicate=", ""}, std::pair{"dp_shard=", "parallel.fsdp"},
        std::pair{"cp=", "parallel.cp"}, std::pair{"tp=", "parallel.tp"}, std::pair{"ep=", "parallel.ep"}}) {
    const std::size_t at = line.find(std::string(" ") + name);
    const auto n = at == std::string_view::npos ? std::nullopt : number_after(line.substr(at + 1), name);
    if (!n || *n < 1 || *n * static_cast<double>(gpus) > 1e7) {  // a mesh of no real job: a corrupted line
      continue;
    }
    if (std::string_view(key) == "parallel.fsdp") {
      if (*n > 1) {
        run.set(key, true, number);  // FSDP2 (fully_shard) over the data-parallel shards
      }
    } else if (*key != '\0') {
      run.set(key, static_cast<std::int64_t>(*n), number);
    }
    // ep shards the experts over ranks the other dimensions already count
    gpus *= std::string_view(name) == "ep=" ? 1 : static_cast<std::int64_t>(*n);
  }
  run.set("gpus", gpus, number);
}

// The GPU count from how the run was launched, where the log shows it and prints no mesh: torchrun's
// --nproc_per_node (x --nnodes), else run_train.sh's NGPU=N (a shell trace "+ NGPU=8").
// The GPU count of a log that does not print it: its torchrun command (--nproc_per_node x --nnodes), else the first
// NGPU=N its launch script shows (torchtitan's run_train.sh). Fed one line at a time.
struct LaunchGpus {
  CommandFinder torchrun{"torchrun"};
  std::optional<double> ngpu;
  int ngpu_line = 0;

  void read(const Line& l) {
    torchrun.read(l);
    const std::size_t at = l.text.find("NGPU=");
    if (ngpu || at == std::string_view::npos || (at > 0 && l.text[at - 1] != ' ' && l.text[at - 1] != '+')) {
      return;
    }
    if (const auto n = number_after(l.text.substr(at), "NGPU"); n && *n >= 1) {
      ngpu = n;
      ngpu_line = l.number;
    }
  }

  void apply(ParsedRun& run) const {
    if (run.config.contains("gpus")) {
      return;
    }
    if (const auto& command = torchrun.command()) {
      const auto per_node = command->option({"--nproc_per_node", "--nproc-per-node"});
      const double nodes = command->number({"--nnodes"}).value_or(1);  // "1:4" (elastic) is no count
      const double count = command->number({"--nproc_per_node", "--nproc-per-node"}).value_or(0) * nodes;
      if (per_node && count >= 1) {
        run.set("gpus", static_cast<std::int64_t>(count), per_node->line);
        return;
      }
    }
    if (ngpu) {
      run.set("gpus", static_cast<std::int64_t>(*ngpu), ngpu_line);
    }
  }
};

std::optional<Failure> read_training_start(std::string_view line, ParsedRun& run, int number,
                                           const std::string& origin) {
  if (line.find("global batch size") == std::string_view::npos) {
    return std::nullopt;  // newer torchtitan says the batch in "Trainer is initialized with", then only the step
  }
  if (run.line_of.count("train.gbs") != 0) {
    return bad_input(origin, number,
                     "two runs in one file: a second 'Training starts at step' (first at line " +
                         std::to_string(run.line_of["train.gbs"]) + "); import one run per file");
  }
  const auto local = number_after(line, "local batch size");
  const auto global = number_after(line, "global batch size");
  const auto seq = number_after(line, "sequence length");
  if (local) {
    run.set("train.mbs", static_cast<std::int64_t>(*local), number);
  }
  if (global) {
    run.set("train.gbs", static_cast<std::int64_t>(*global), number);
  }
  if (seq) {
    run.set("train.seq_len", static_cast<std::int64_t>(*seq), number);
  }
  return std::nullopt;
}

void read_model(std::string_view line, ParsedRun& run, int number) {
  // "Building <module> <flavour> with TransformerModelArgs(...)", newer torchtitan "Building <module> <flavour>".
  const std::size_t at = line.find("Building ");
  if (at == std::string_view::npos || line.find("device mesh") != std::string_view::npos) {
    return;
  }
  const std::string_view rest = trim(line.substr(at + 9));
  const std::size_t with = rest.find(" with ");
  const std::string_view name = with == std::string_view::npos ? rest : rest.substr(0, with);
  if (std::count(name.begin(), name.end(), ' ') == 1) {
    run.printed_model = std::string(name);
    run.printed_model_line = number;
  }
}

// Every rank prints its step line when the launcher does not filter ranks, and some forks print the last step again
// as "final step: N": a step already read is the same step, not a new one.
std::optional<Failure> read_step(std::string_view line, ParsedRun& run, double& last_step, int number,
                                 const std::string& origin) {
  const auto step = number_after(line, "step:");
  const auto tps = number_after(line, "tps:");
  if (!step || !tps) {
    return bad_input(origin, number, "a metrics line without its step or tps (a line cut short?)");
  }
  if (*step == last_step) {
    return std::nullopt;
  }
  if (*step < last_step) {
    return bad_input(origin, number,
                     "two runs in one file: the steps restart at " + std::to_string(static_cast<long long>(*step)) +
                         "; import one run per file");
  }
  last_step = *step;
  run.series.push_back(*tps);
  run.steps.push_back(static_cast<long>(*step));
  if (auto tflops = number_after(line, "tflops:")) {
    run.tflops.push_back(*tflops);
  }
  if (auto mfu = number_after(line, "mfu:")) {
    run.mfu.push_back(*mfu);
  }
  return std::nullopt;
}

std::optional<Failure> read_line(std::string_view s, ParsedRun& run, double& last_step, int number,
                                 const std::string& origin) {
  if (is_metrics_line(s)) {
    return read_step(s, run, last_step, number, origin);
  }
  if (s.find("Training starts at step") != std::string_view::npos ||
      s.find("Trainer is initialized with") != std::string_view::npos) {
    return read_training_start(s, run, number, origin);
  }
  if (s.find("device mesh with parallelism:") != std::string_view::npos) {
    read_parallelism(s, run, number);
  } else if (s.find("device mesh with") != std::string_view::npos) {
    read_mesh(s.substr(s.find("device mesh with")), run, number);
  } else if (auto gpu =
                 text_after(s, "capacity:")) {  // "GPU capacity: NAME (0) with", older "CUDA capacity: NAME with"
    run.printed_device = gpu->substr(0, std::min(gpu->find(" ("), gpu->find(" with ")));
  } else if (s.find("Float8 training active") != std::string_view::npos || s.find("MXFP8") != std::string_view::npos) {
    run.set("precision", s.find("MXFP8") != std::string_view::npos ? "mxfp8" : "fp8", number);
  } else {
    read_model(s, run, number);
  }
  return std::nullopt;
}

// What the log says of the framework's own choices: torch.compile, async TP and FSDP's mixed precision decide
// which torchtitan profile of configs/frameworks ran (torchtitan: compiled with async TP; torchtitan-sync-tp:
// compiled, TP without async; torchtitan-eager: no torch.compile), and bf16 is what fully_shard computes in unless a
// float8 conversion says otherwise.
struct TitanFeatures {
  int compiled = 0;  // the line that says so, 0 when none
  int async_tp = 0;
  int mixed_precision = 0;
  std::string recompute = "none";  // torchtitan says "Applied selective|full activation checkpointing" when on
  int recompute_line = 0;

  void read(std::string_view s, int number) {
    if (s.find("with torch.compile") != std::string_view::npos) {
      compiled = number;
    } else if (s.find("Async TP") != std::string_view::npos || s.find("async TP") != std::string_view::npos) {
      async_tp = number;
    } else if (s.find("Mixed precision training is handled by fully_shard") != std::string_view::npos) {
      mixed_precision = number;
    } else if (s.find("activation checkpointing to the model") != std::string_view::npos) {
      recompute = s.find("Applied full") != std::string_view::npos ? "full" : "selective";
      recompute_line = number;
    }
  }

  void apply(ParsedRun& run) const {
    const json::Value* tp = run.config.find("parallel.tp");
    const bool tensor_parallel = tp != nullptr && tp->is_number() && tp->as_number() > 1;
    const char* framework = compiled == 0                      ? "torchtitan-eager"
                            : tensor_parallel && async_tp == 0 ? "torchtitan-sync-tp"
                                                               : "torchtitan";
    // What only the absence of a line suggests (eager: no torch.compile line; no activation checkpointing) is an
    // inference a --set may overrule: an excerpt may simply not show those lines.
    if (compiled != 0) {
      run.set("framework", framework, compiled);
    } else {
      run.inferred.set("framework", framework);
    }
    if (recompute_line != 0) {
      run.set("train.recompute", recompute, recompute_line);
    } else {
      run.inferred.set("train.recompute", recompute);
    }
    run.notes.push_back(std::string("framework ") + framework + ": " +
                        (compiled == 0 ? "no torch.compile line (eager; --set framework= overrules)"
                                       : "torch.compile (line " + std::to_string(compiled) + ")" +
                                             (tensor_parallel ? async_tp != 0 ? ", async TP" : ", TP without async TP"
                                                              : std::string())));
    if (run.config.find("precision") == nullptr && mixed_precision != 0) {
      run.set("precision", "bf16", mixed_precision);
      run.notes.push_back("precision bf16: FSDP's mixed precision (line " + std::to_string(mixed_precision) +
                          "), no float8 conversion in the log");
    }
  }
};

// A traceback's last line ("SomethingError: ..."), to say how a run without steps ended.
bool is_error_line(std::string_view s) {
  const std::size_t colon = s.find(": ");
  const std::string_view head = colon == std::string_view::npos ? std::string_view() : s.substr(0, colon);
  return head.size() > 5 && head.substr(head.size() - 5) == "Error" && head.find(' ') == std::string_view::npos;
}

// A run that died before its first metrics line (an OOM in step 1) says how it ended (`last_error`, its line). One
// that logged only its first step is the steady-state rule's to refuse (steady_state.cpp): its user may vouch for it
// with import.warmup.
std::optional<Failure> refuse_without_steps(const std::string& last_error, int error_line, const ParsedRun& run,
                                            const std::string& origin) {
  if (!run.series.empty()) {
    return std::nullopt;
  }
  return bad_input(origin, error_line,
                   "no metrics line (step: ... tps: ...): the run logged no training step" +
                       (error_line != 0 ? "; it ended with '" + last_error.substr(0, 160) + "'"
                                        : std::string("; the log ends before the first one")));
}

}  // namespace

// A run that logged no step is still torchtitan's when its logger's "[titan]" tag says so: it is refused with what
// is missing rather than as a file of no known format.
bool looks_like_torchtitan(std::string_view text) {
  for (const Line& line : split_lines(text)) {
    if (is_metrics_line(strip_ansi(line.text))) {
      return true;
    }
  }
  return text.find("[titan] ") != std::string_view::npos;
}

Expected<ParsedRun> parse_torchtitan_log(LineSource& lines, const std::string& origin) {
  ParsedRun run;
  run.tool = "torchtitan";
  run.kind = RunKind::training;
  run.workload = "llm-pretrain";
  run.series_kind = SeriesKind::tokens_per_s_per_gpu;
  run.timing = "torchtitan's tps: tokens per second per GPU over each logging interval";
  double last_step = 0;
  TitanFeatures features;
  LaunchGpus launch;
  std::string last_error;
  int error_line = 0;
  const auto stopped = for_each_line(lines, [&](const Line& line) -> std::optional<Failure> {
    const std::string s = strip_ansi(line.text);
    if (auto problem = read_line(s, run, last_step, line.number, origin)) {
      return problem;
    }
    features.read(s, line.number);
    launch.read(line);
    if (is_error_line(trim(s))) {
      last_error = std::string(trim(s));
      error_line = line.number;
    }
    if (!trim(s).empty()) {
      run.first_line = run.first_line == 0 ? line.number : run.first_line;
      run.last_line = line.number;
    }
    return std::nullopt;
  });
  if (stopped) {
    return *stopped;
  }
  if (auto refused = refuse_without_steps(last_error, error_line, run, origin)) {
    return *refused;
  }
  features.apply(run);
  launch.apply(run);
  return run;
}

}  // namespace dgx::logs
