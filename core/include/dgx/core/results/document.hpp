// Result rows and the report that carries them, in the dgx.results/1 schema (docs/results-schema.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/results/workload_declarations.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

inline constexpr const char* kResultsSchema = "dgx.results/1";

enum class ResultMode { measured, projected, reference };
std::string_view to_string(ResultMode mode);

struct Metric {
  std::string name;
  double value = 0;
  std::string unit;
  bool hidden = false;  // JSON/CSV only, not in the terminal table
  std::string label;    // short terminal column title; empty: the name
};

struct Field {
  std::string key;
  std::string value;
  bool hidden = false;
};

struct ResultRow {
  std::string workload;
  std::string plugin;
  ResultMode mode = ResultMode::measured;
  std::string table;  // groups rows into one terminal table
  std::string label;  // e.g. a measured case's label
  json::Object config;
  std::vector<std::string> hidden_config;  // config keys kept out of the terminal table
  std::vector<Metric> metrics;
  std::vector<Field> fields;
  std::vector<double> sample_times;  // measured rows: seconds per iteration, in sample order

  void add_metric(Metric metric);  // replaces a metric of the same name
  void add_field(Field field);     // replaces a field of the same key
  [[nodiscard]] const Metric* find_metric(std::string_view name) const;
  [[nodiscard]] const Field* find_field(std::string_view key) const;
  /// A config value as text (a string as it is, another value as JSON: "bf16", "8", "[1,2]"); `fallback` when the
  /// row has no such key.
  [[nodiscard]] std::string config_text(std::string_view key, std::string_view fallback = {}) const;
  [[nodiscard]] json::Value to_json() const;
};

struct Note {
  bool before = false;  // before the tables (assumptions) or after them (recommendations)
  std::string title;
  std::string text;
};

/// The context's "dgxhost" block every report starts from: this binary's version and git revision.
json::Object dgxhost_identity();

struct Report {
  json::Object context;
  /// What the rows' workloads declare of them (workload_declarations.hpp): how to judge, pair and chart them.
  std::vector<WorkloadDeclarations> workloads;
  std::vector<ResultRow> rows;
  std::vector<Note> notes;
  int exit_code = 0;
  std::string error;  // why the run failed, when exit_code != 0

  [[nodiscard]] json::Value to_json() const;
};

}  // namespace dgx
