// --set and the file together: what the file prints wins unless --set says the same, what it does not print comes
// from --set, and a key a row needs that neither gives is an error naming the --set that supplies it.
#include <algorithm>

#include "catalog_names.hpp"
#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/system_catalog.hpp"
#include "dgx/core/config/layered_config.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

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
std::optional<Failure> check_catalog_name(const ConfigEntry& entry, const std::string& origin) {
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

std::optional<Failure> apply_set(ParsedRun& run, const std::string& argument, const std::string& origin) {
  auto entry = parse_set_argument(argument);
  if (!entry) {
    return entry.error();
  }
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

std::optional<Failure> merge_sets(ParsedRun& run, const std::vector<std::string>& sets, const std::string& origin) {
  for (const std::string& argument : sets) {
    if (auto problem = apply_set(run, argument, origin)) {
      return problem;
    }
  }
  if (auto problem = resolve_printed_names(run, origin)) {
    return problem;
  }
  for (const std::string& key : required_keys(run.kind)) {
    if (!run.config.contains(key)) {
      const std::string device = key == "system" && !run.printed_device.empty()
                                     ? " (no catalog system names the GPU '" + run.printed_device + "')"
                                     : "";
      const std::string candidates = key == "model" && !run.model_candidates.empty()
                                         ? " (its architecture is that of " + joined(run.model_candidates) + ")"
                                         : "";
      return bad_input(origin, 0,
                       "the log does not print " + what_is_missing(key) + device + candidates + ": add --set " + key +
                           "=" + placeholder(key));
    }
  }
  return std::nullopt;
}

}  // namespace dgx::detail
