// Published reference numbers, read from configs/baselines/*.toml: what `--baseline published` holds a run against.
//
// A baseline file keeps its published rows as `[[row]]` tables (the calibration sets that libs/llm-model fits
// the performance model to, the kernel and collective ceilings, ...) and says in `[[reference]]` tables how
// dgxhost's rows map onto them; the numbers themselves live only in the rows. A reference view:
//
//   [[reference]]
//   workload = "llm-pretrain"                 # rows of this workload (or a row column named "workload")
//   what = "..."                              # optional: what the numbers mean for the rows they judge
//   where = { section = "A" }                 # optional: only the rows with these column values
//   match = ["model", "system", "precision"]  # row columns that must equal the run row's
//   near = ["gpus", "tp", "pp", ...]          # columns ranked for the nearest row when none matches exactly
//   keys = { tp = "parallel.tp" }             # column -> where a dgxhost row has it: a config key (the default:
//                                             # the column's own name), "info.KEY", "metric.NAME", "workload"
//   values = [{ column = "published", metric = "step_time", unit = "s", where = { metric = "step_time_s" } },
//             { column = "published_mfu", metric = "mfu", unit = "1", per_gpu = true }]
//
// A row's column may hold one value, a list (any of them matches) or { min = X, max = Y }. `per_gpu` marks a
// value that stays comparable when the nearest row differs in scale or layout (per-GPU throughput, MFU,
// ceilings); a nearest row offers only those. `label` and `source` columns describe the row.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

/// Where a constraint looks in a result row: a config key, a field (info.KEY), a metric (metric.NAME), the
/// workload or the table.
struct RowKey {
  std::string path;  // as written in the baseline file: "parallel.tp", "info.system", "metric.size", "workload"
  /// The row's value at this key, or null when the row has none.
  [[nodiscard]] json::Value read(const ResultRow& row) const;
  /// The config key this names, or empty when it names no config key.
  [[nodiscard]] std::string config_key() const;
};

/// One column of a reference row held against a row's key: a value, a list (any of) or {min, max}.
struct Constraint {
  RowKey key;
  json::Value expected;
  [[nodiscard]] bool accepts(const json::Value& value) const;
  /// "64", "h100-sxm|h200-sxm", ">= 1073741824".
  [[nodiscard]] std::string describe() const;
};

struct ReferenceValue {
  std::string metric;  // the dgxhost metric it stands for
  double value = 0;
  std::string unit;
  bool per_gpu = false;  // comparable when the nearest row differs in scale or layout
};

/// One published row, ready to be matched.
struct Reference {
  std::string origin;  // "calibration.toml row 12"
  std::string label;
  std::string source;
  std::string kind = "published";  // or the mode of a baseline run's row: "measured", "projected"
  std::size_t row = 0;             // a baseline run's row: its index in that run
  std::vector<Constraint> exact;   // all must hold
  std::vector<Constraint> near;    // ranked, earlier ones weigh more
  std::vector<ReferenceValue> values;
};

/// Parses the [[reference]] views of one baseline document into references (through the catalog's TOML front door:
/// errors name `name`, the line and the key); the rows' origin is "<name> row N".
Expected<std::vector<Reference>> parse_references(std::string_view toml_text, const std::string& name);

/// Every reference of the baselines/*.toml files of the catalog (its search order: --config-dir, DGX_CONFIG_PATH,
/// the install's configs, the compiled-in copy; a file name found earlier hides a later one).
Expected<std::vector<Reference>> load_published_references();

}  // namespace dgx
