// What a workload of ABI 1.1 declares of its rows, checked as the rest of its descriptor is: every count, stride,
// string, unit and enumeration, and that identity keys and chart axes name what the workload has (its parameters,
// its declared metrics), so that a typo disables the plugin at load time with a reason instead of an empty chart
// or a series that never continues.
#include "descriptor_declarations_v1.hpp"

#include <algorithm>
#include <cstddef>
#include <set>

#include <dgx/sdk/units.hpp>

#include "descriptor_checks.hpp"
#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx::detail {

namespace {

constexpr std::uint32_t kMaxMetricDescs = 4096;
constexpr std::uint32_t kMaxIdentityKeys = 256;
constexpr std::uint32_t kMaxCharts = 256;

// Whether the descriptor reaches field `offset` (of `size` bytes): a 1.0 descriptor ends before the declarations.
bool reaches(const dgx_workload_desc& w, std::size_t offset, std::size_t size) {
  return w.struct_size >= offset + size;
}

bool metric_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// A metric as rows name it: lower-case words of letters, digits and '_' joined by single dots ("time.median"),
// or a family of them ending in ".*" ("ttft.*").
bool valid_metric_name(std::string_view name) {
  if (name.size() > 2 && name.ends_with(".*")) {
    name.remove_suffix(2);
  }
  if (name.empty() || name.size() > 128) {
    return false;
  }
  for (const std::string_view part : text::split(std::string(name), '.')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), metric_char)) {
      return false;
    }
  }
  return true;
}

Better better_of(dgx_better better) {
  return better == DGX_BETTER_HIGHER ? Better::higher : better == DGX_BETTER_LOWER ? Better::lower : Better::none;
}

Expected<MetricDeclaration> read_metric(const dgx_metric_desc& m, const std::string& where) {
  if (m.name == nullptr || !valid_metric_name(m.name)) {
    return plugin_failure(where + " is named " + (m.name == nullptr ? std::string("NULL") : shown(m.name)) +
                          " (expected lower-case words of letters, digits and '_' joined by dots, or such a family "
                          "ending in \".*\")");
  }
  const std::string here = where + " " + shown(m.name);
  if (m.unit == nullptr || !sdk::is_known_unit(m.unit)) {
    return plugin_failure(here + " has unit " + (m.unit == nullptr ? std::string("NULL") : shown(m.unit)) +
                          " (expected one of " + sdk::known_units() + ")");
  }
  if (m.better < DGX_BETTER_NONE || m.better > DGX_BETTER_LOWER) {
    return plugin_failure(here + " has better = " + std::to_string(m.better) +
                          " (expected DGX_BETTER_NONE 0, DGX_BETTER_HIGHER 1 or DGX_BETTER_LOWER 2)");
  }
  return MetricDeclaration{m.name, m.unit, better_of(m.better), printable(m.label), printable(m.help)};
}

std::optional<Failure> read_metrics(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info) {
  if (auto problem = check_array(named + " metric_descs", w.metric_descs, w.metric_desc_count, kMaxMetricDescs)) {
    return plugin_failure(*problem);
  }
  if (w.metric_desc_count > 0) {
    if (auto problem = check_size<dgx_metric_desc>(named + " metric_descs[0]", w.metric_descs->struct_size)) {
      return plugin_failure(*problem);
    }
  }
  for (std::uint32_t i = 0; i < w.metric_desc_count; ++i) {
    auto m = read_metric(strided_element(w.metric_descs, i), named + " metric_descs[" + std::to_string(i) + "]");
    if (!m) {
      return m.error();
    }
    const auto& metrics = info.declarations.metrics;
    if (std::any_of(metrics.begin(), metrics.end(), [&](const MetricDeclaration& d) { return d.name == m->name; })) {
      return plugin_failure(named + " metric_descs declares '" + m->name + "' twice (expected unique names)");
    }
    info.declarations.metrics.push_back(std::move(m.value()));
  }
  return std::nullopt;
}

bool is_parameter(const WorkloadInfo& info, std::string_view key) {
  return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& p) { return p.key == key; });
}

bool family_of_parameters(const WorkloadInfo& info, std::string_view family) {
  const std::string_view prefix = family.substr(0, family.size() - 1);  // "parallel."
  return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& p) {
    return p.key.size() > prefix.size() && std::string_view(p.key).starts_with(prefix);
  });
}

bool has_measure_mode(const WorkloadInfo& info) { return info.supports(DGX_MODE_MEASURE); }

// Why an identity key is refused, or empty.
std::string identity_problem(const WorkloadInfo& info, std::string_view key) {
  const bool family = key.size() > 2 && key.ends_with(".*");
  const std::string_view base = family ? key.substr(0, key.size() - 2) : key;
  if (!valid_config_key(base)) {
    return "is not a config key (expected letters, digits, '_', '-', separated by dots, or a family ending in \".*\")";
  }
  if (key.starts_with("runner.") || key.starts_with("verdict.")) {
    return "is the host's (runner.* and verdict.* keys never identify a workload's run)";
  }
  if (family) {
    return family_of_parameters(info, key) ? "" : "matches no parameter of the schema";
  }
  // A metric that names the case (a message size); a key a measured case sets itself ("world_size").
  if (is_parameter(info, key) || info.declarations.find_metric(key) != nullptr || has_measure_mode(info)) {
    return {};
  }
  return "is neither a parameter of the schema nor a metric of metric_descs (expected one of its keys, or a family "
         "such as \"parallel.*\")";
}

std::optional<Failure> read_identity(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info) {
  if (auto problem = check_array(named + " identity_keys", w.identity_keys, w.identity_key_count, kMaxIdentityKeys)) {
    return plugin_failure(*problem);
  }
  if (w.identity_keys == nullptr) {
    return std::nullopt;  // none declared: the host's rule
  }
  std::vector<std::string> keys;
  for (std::uint32_t i = 0; i < w.identity_key_count; ++i) {
    const char* key = w.identity_keys[i];
    const std::string where = named + " identity_keys[" + std::to_string(i) + "]";
    if (key == nullptr) {
      return plugin_failure(where + " is NULL (expected a config key)");
    }
    if (const std::string problem = identity_problem(info, key); !problem.empty()) {
      return plugin_failure(where + " " + shown(key) + " " + problem);
    }
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      return plugin_failure(where + " " + shown(key) + " is declared twice (expected unique keys)");
    }
    keys.emplace_back(key);
  }
  info.declarations.identity_keys = std::move(keys);
  return std::nullopt;
}

std::string text_of(const char* s) { return s != nullptr ? printable(s) : std::string(); }

// Why a chart's axes or peak are refused, or empty: y and the peak among the declared metrics, x a declared metric
// or a parameter (or a key a measured case sets), the unit in y's quantity.
std::string chart_problem(const WorkloadInfo& info, const ChartDeclaration& c) {
  const MetricDeclaration* y = info.declarations.find_metric(c.y);
  if (y == nullptr) {
    return "y '" + c.y + "' is no metric of metric_descs (expected a declared metric)";
  }
  const bool x_known =
      info.declarations.find_metric(c.x) != nullptr || is_parameter(info, c.x) || has_measure_mode(info);
  if (!valid_config_key(c.x) || !x_known) {
    return "x '" + c.x + "' is neither a metric of metric_descs nor a parameter of the schema";
  }
  if (!c.unit.empty() && !convert(1, c.unit, y->unit)) {
    return "unit '" + c.unit + "' is not a unit of y '" + c.y + "' (" + y->unit + ")";
  }
  if (c.peak_line && info.declarations.find_metric(c.peak_metric) == nullptr) {
    return "peak_metric '" + c.peak_metric + "' is no metric of metric_descs (DGX_CHART_PEAK_LINE needs one)";
  }
  return {};
}

Expected<ChartDeclaration> read_chart(const dgx_chart_desc& c, const std::string& where, const WorkloadInfo& info) {
  constexpr std::uint32_t kKnownFlags =
      DGX_CHART_LOG_X | DGX_CHART_LOG_Y | DGX_CHART_PARETO | DGX_CHART_PEAK_LINE | DGX_CHART_ALTERNATIVE;
  if (c.title == nullptr || *c.title == '\0') {
    return plugin_failure(where + " has no title (expected one, found " + (c.title ? "\"\")" : "NULL)"));
  }
  const std::string here = where + " " + shown(c.title);
  if (c.kind != DGX_CHART_LINES && c.kind != DGX_CHART_BARS) {
    return plugin_failure(here + " has kind " + std::to_string(c.kind) + " (expected DGX_CHART_LINES 1 or BARS 2)");
  }
  if (c.x == nullptr || c.y == nullptr) {
    return plugin_failure(here + " lacks x or y (found NULL)");
  }
  if (c.mode < 0 || c.mode > DGX_RESULT_REFERENCE) {
    return plugin_failure(here + " has mode " + std::to_string(c.mode) + " (expected 0: any, or 1-3)");
  }
  if ((c.flags & ~kKnownFlags) != 0) {
    return plugin_failure(here + " has flags " + std::to_string(c.flags) + " (expected DGX_CHART_* bits)");
  }
  if (c.unit != nullptr && *c.unit != '\0' && !sdk::is_known_unit(c.unit)) {
    return plugin_failure(here + " has unit " + shown(c.unit) + " (expected one of " + sdk::known_units() + ")");
  }
  ChartDeclaration chart;
  chart.title = printable(c.title);
  chart.kind = c.kind == DGX_CHART_BARS ? ChartKind::bars : ChartKind::lines;
  chart.x = printable(c.x);
  chart.y = printable(c.y);
  chart.series = text_of(c.series);
  chart.caption = text_of(c.caption);
  if (c.mode != 0) {
    chart.mode = c.mode == DGX_RESULT_MEASURED    ? ResultMode::measured
                 : c.mode == DGX_RESULT_PROJECTED ? ResultMode::projected
                                                  : ResultMode::reference;
  }
  chart.table = text_of(c.table);
  chart.unit = text_of(c.unit);
  chart.peak_metric = text_of(c.peak_metric);
  chart.peak_label = text_of(c.peak_label);
  chart.log_x = (c.flags & DGX_CHART_LOG_X) != 0;
  chart.log_y = (c.flags & DGX_CHART_LOG_Y) != 0;
  chart.pareto = (c.flags & DGX_CHART_PARETO) != 0;
  chart.peak_line = (c.flags & DGX_CHART_PEAK_LINE) != 0;
  chart.alternative = (c.flags & DGX_CHART_ALTERNATIVE) != 0;
  if (const std::string problem = chart_problem(info, chart); !problem.empty()) {
    return plugin_failure(here + ": " + problem);
  }
  return chart;
}

std::optional<Failure> read_charts(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info) {
  if (auto problem = check_array(named + " charts", w.charts, w.chart_count, kMaxCharts)) {
    return plugin_failure(*problem);
  }
  if (w.chart_count > 0) {
    if (auto problem = check_size<dgx_chart_desc>(named + " charts[0]", w.charts->struct_size)) {
      return plugin_failure(*problem);
    }
  }
  for (std::uint32_t i = 0; i < w.chart_count; ++i) {
    auto chart = read_chart(strided_element(w.charts, i), named + " charts[" + std::to_string(i) + "]", info);
    if (!chart) {
      return chart.error();
    }
    info.declarations.charts.push_back(std::move(chart.value()));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Failure> read_declarations_v1(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info) {
  info.declarations.workload = info.name;
  if (!reaches(w, offsetof(dgx_workload_desc, chart_count), sizeof w.chart_count)) {
    return std::nullopt;  // ABI 1.0: nothing declared
  }
  if (auto failure = read_metrics(w, named, info)) {
    return failure;
  }
  if (auto failure = read_identity(w, named, info)) {
    return failure;
  }
  return read_charts(w, named, info);
}

}  // namespace dgx::detail
