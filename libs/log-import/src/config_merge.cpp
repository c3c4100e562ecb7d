// --set and the file together: what the file prints wins unless --set says the same, what it does not print comes
// from --set, and a key a row needs that neither gives is an error naming the --set that supplies it.
#include <algorithm>
#include <cmath>

#include "catalog_names.hpp"
#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/system_catalog.hpp"
#include "parsed_run.hpp"

#include <dgx/sdk/utc_time.hpp>

namespace dgx::logs {

namespace {

// What a serving run's GPUs are: the fleet that served the benchmark (llm-inference's serve.fleet_gpus).
constexpr const char* kFleetGpus = "serve.fleet_gpus";

std::string shown(const json::Value& v) { return v.is_string() ? v.as_string() : json::write(v, 0); }

bool same(const json::Value& a, const json::Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.as_number() == b.as_number();
  }
  return shown(a) == shown(b);
}

// What --set KEY=... takes, for the message that asks for it.
std::string placeholder(const std::string& key) {
  if (key == "system") {
    const auto names = catalog_systems();
    return "NAME" + (names.empty() ? std::string() : " (one of " + joined(names) + ")");
  }
  if (key == "model") {
    const auto names = catalog_models();
    return "NAME" + (names.empty() ? std::string() : " (one of " + joined(names) + ")");
  }
  if (key == "precision") {
    return "bf16|fp8|mxfp8|nvfp4";
  }
  if (key == "comm.collective") {
    return "all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv";
  }
  return "N";
}

std::vector<std::string> required_keys(RunKind kind) {
  switch (kind) {
  case RunKind::training: return {"model", "system", "gpus", "precision", "train.gbs", "train.seq_len"};
  case RunKind::serving: return {"model", "system", kFleetGpus};
  case RunKind::collective: return {"comm.collective", "system", "world_size"};
  }
  return {};
}

// The value the file gives `key`, as the catalog names it: the printed model and GPU are mapped here.
std::optional<json::Value> printed_value(const ParsedRun& run, const std::string& key) {
  if (const json::Value* v = run.config.find(key)) {
    return *v;
  }
  if (key == "model" && !run.printed_model.empty()) {
    const auto name = catalog_model(run.printed_model);
    return name ? std::optional<json::Value>(*name) : std::nullopt;
  }
  if (key == "system" && !run.printed_device.empty()) {
    const auto name = system_of_device(run.printed_device);
    return name ? std::optional<json::Value>(*name) : std::nullopt;
  }
  return std::nullopt;
}

int line_of(const ParsedRun& run, const std::string& key) {
  if (key == "model") {
    return run.printed_model_line;
  }
  const auto it = run.line_of.find(key);
  return it == run.line_of.end() ? 0 : it->second;
}

// A model or system --set names must be one of the catalog's (when the catalog is found).
std::optional<Failure> check_catalog_name(const SetEntry& entry, const std::string& origin) {
  if (entry.key != "model" && entry.key != "system") {
    return std::nullopt;
  }
  const std::string value = shown(entry.value);
  const bool known = entry.key == "model" ? catalog::find_model(value).has_value()
                                          : catalog::find_system(value).has_value() || value.ends_with(".toml");
  if (known) {
    return std::nullopt;
  }
  const auto names = entry.key == "model" ? catalog_models() : catalog_systems();
  return bad_input(origin, 0,
                   "--set " + entry.key + "=" + value + ": " + catalog::unknown_entry(entry.key, value, names));
}

std::optional<Failure> apply_set(ParsedRun& run, const SetEntry& argument, const std::string& origin) {
  std::optional<SetEntry> entry = argument;
  if (run.kind == RunKind::serving && entry->key == "gpus") {
    entry->key = kFleetGpus;  // serving's GPUs are the fleet's; `gpus` is its name before issue 35
  }
  if (auto problem = check_catalog_name(*entry, origin)) {
    return problem;
  }
  const auto printed = printed_value(run, entry->key);
  const bool refines = entry->key == "system" && printed && entry->value.is_string() &&
                       system_answers_to(entry->value.as_string(), run.printed_device);
  if (printed && !same(*printed, entry->value) && !refines) {
    return bad_input(origin, line_of(run, entry->key),
                     "the log says " + entry->key + "=" + shown(*printed) + " but --set " + entry->key + "=" +
                         shown(entry->value) + " contradicts it");
  }
  run.config.set(entry->key, entry->value);
  return std::nullopt;
}

// The printed model and GPU, mapped to catalog names where --set did not name them.
std::optional<Failure> resolve_printed_names(ParsedRun& run, const std::string& origin) {
  for (const char* key : {"model", "system"}) {
    if (run.config.contains(key)) {
      continue;
    }
    if (auto value = printed_value(run, key)) {
      run.config.set(key, *value);
    } else if (std::string(key) == "model" && !run.printed_model.empty()) {
      return bad_input(origin, run.printed_model_line,
                       "the model '" + run.printed_model +
                           "' is not one the catalog knows by that name: add --set "
                           "model=" +
                           placeholder("model"));
    }
  }
  return std::nullopt;
}

// What the file prints of the configuration, for the message that asks for the rest: "parallel.tp=8 (line 12)".
std::string what_it_prints(const ParsedRun& run) {
  std::string printed;
  for (const auto& [key, value] : run.config) {
    const int line = line_of(run, key);
    printed += (printed.empty() ? "" : ", ") + key + "=" + shown(value) +
               (line > 0 ? " (line " + std::to_string(line) + ")" : "");
  }
  if (!run.printed_model.empty() && !run.config.contains("model")) {
    printed += (printed.empty() ? "" : ", ") + std::string("the model as '") + run.printed_model + "'";
  }
  if (!run.printed_device.empty() && !run.config.contains("system")) {
    printed += (printed.empty() ? "" : ", ") + std::string("the GPU as '") + run.printed_device + "'";
  }
  return printed.empty() ? "the log prints no configuration key" : "the log prints " + printed;
}

// A training run's sequence length, when the log does not print it: the model's default from the catalog, said so
// in the row's note (Megatron prints it in its argument dump, torchtitan and NeMo's progress lines do not).
void default_seq_len(ParsedRun& run) {
  const json::Value* model = run.config.find("model");
  if (run.kind != RunKind::training || run.config.contains("train.seq_len") || model == nullptr ||
      !model->is_string()) {
    return;
  }
  const std::string name = model->as_string();  // set() below may move the config's members
  const auto config = catalog::find_model(name);
  if (config && config->seq_len > 0) {
    run.config.set("train.seq_len", config->seq_len);
    run.notes.push_back("train.seq_len " + std::to_string(config->seq_len) + " is " + name +
                        "'s default from the catalog: the log does not print it");
  }
}

std::string what_is_missing(const std::string& key) {
  if (key == "system" || key == "model" || key == "precision") {
    return "the " + key;
  }
  if (key == "comm.collective") {
    return "the collective (nccl-tests prints it from version 2.13)";
  }
  if (key == "gpus" || key == "world_size" || key == kFleetGpus) {
    return "the GPU count";
  }
  return key;
}

}  // namespace

std::optional<Failure> merge_sets(ParsedRun& run, const std::vector<SetEntry>& sets, const std::string& origin) {
  const std::string printed = what_it_prints(run);  // before --set adds to the configuration
  for (const SetEntry& argument : sets) {
    if (auto problem = apply_set(run, argument, origin)) {
      return problem;
    }
  }
  if (auto problem = resolve_printed_names(run, origin)) {
    return problem;
  }
  for (const auto& [key, value] : run.inferred) {
    if (!run.config.contains(key)) {
      run.config.set(key, value);
    }
  }
  default_seq_len(run);
  // Every missing key in one message, so that one more attempt imports the file.
  std::vector<std::string> missing;
  std::vector<std::string> adds;
  for (const std::string& key : required_keys(run.kind)) {
    if (!run.config.contains(key)) {
      const std::string device = key == "system" && !run.printed_device.empty()
                                     ? " (no catalog system names the GPU '" + run.printed_device + "')"
                                     : "";
      const std::string candidates = key == "model" && !run.model_candidates.empty()
                                         ? " (its architecture is that of " + joined(run.model_candidates) + ")"
                                         : "";
      missing.push_back(what_is_missing(key) + device + candidates);
      adds.push_back("--set " + key + "=" + placeholder(key));
    }
  }
  if (missing.empty()) {
    return std::nullopt;
  }
  std::string message = "the log does not print ";
  for (std::size_t i = 0; i < missing.size(); ++i) {
    message += (i == 0 ? "" : i + 1 == missing.size() ? " nor " : ", ") + missing[i];
  }
  message += ": add";
  for (const std::string& add : adds) {
    message += " " + add;
  }
  return bad_input(origin, 0, message + "; " + printed);
}

std::optional<Failure> apply_import_options(ParsedRun& run, const std::vector<SetEntry>& sets,
                                            std::vector<SetEntry>& rest, const std::string& origin) {
  for (const SetEntry& argument : sets) {
    if (!argument.key.starts_with("import.") && argument.key != "run.time") {
      rest.push_back(argument);
      continue;
    }
    const SetEntry* entry = &argument;
    if (entry->key == "run.time") {
      const auto seconds = entry->value.is_string() ? sdk::parse_iso_utc(entry->value.as_string()) : std::nullopt;
      if (!seconds) {
        return bad_input(origin, 0,
                         "--set run.time=" + shown(entry->value) +
                             ": when the run ran must be an ISO 8601 UTC time such as 2026-11-03T02:00:00Z");
      }
      run.time = *seconds;
      run.time_from = "--set run.time";
      continue;
    }
    if (entry->key != "import.warmup" && entry->key != "import.run") {
      return bad_input(origin, 0,
                       "--set " + entry->key + ": not an option of import (import.warmup=N and import.run=N are)");
    }
    const bool count = entry->value.is_number() && entry->value.as_number() >= 0 &&
                       entry->value.as_number() == std::floor(entry->value.as_number()) &&
                       entry->value.as_number() < 1e9;
    if (!count) {
      return bad_input(origin, 0,
                       "--set import.warmup=" + shown(entry->value) +
                           ": the warm-up steps to drop must be a whole number, 0 or more");
    }
    const auto n = static_cast<std::size_t>(entry->value.as_number());
    if (entry->key == "import.run") {
      if (n == 0) {
        return bad_input(origin, 0, "--set import.run=0: runs are counted from 1");
      }
      run.user_run = n;
    } else {
      run.user_warmup = n;
    }
  }
  return std::nullopt;
}

std::optional<Failure> select_run(ParsedRun& run, const std::string& origin, bool first_by_default) {
  const std::size_t count = 1 + run.more_runs.size();
  std::string where = std::to_string(run.first_line);
  for (const ParsedRun& r : run.more_runs) {
    where += ", " + std::to_string(r.first_line);
  }
  if (run.user_run && *run.user_run > count) {
    return bad_input(origin, 0,
                     "--set import.run=" + std::to_string(*run.user_run) + ": the file holds " + std::to_string(count) +
                         (count == 1 ? " run" : " runs (at lines " + where + ")"));
  }
  if (count == 1) {
    return std::nullopt;
  }
  if (!run.user_run && !first_by_default) {
    return bad_input(origin, run.more_runs.front().first_line,
                     std::to_string(count) + " runs in one file (at lines " + where + "): --set import.run=N (1-" +
                         std::to_string(count) + ") picks one, or import one run per file");
  }
  const std::size_t chosen = run.user_run.value_or(1);
  std::vector<ParsedRun> others = std::move(run.more_runs);
  if (chosen > 1) {
    ParsedRun picked = std::move(others[chosen - 2]);
    picked.user_warmup = run.user_warmup;
    picked.user_run = run.user_run;
    picked.time = run.time;
    picked.time_from = run.time_from;
    run = std::move(picked);
  }
  run.more_runs.clear();
  run.notes.push_back("run " + std::to_string(chosen) + " of the " + std::to_string(count) + " in the file (at lines " +
                      where + ")" +
                      (run.user_run ? std::string(", chosen by import.run") : "; --set import.run=N picks another"));
  return std::nullopt;
}

}  // namespace dgx::logs
