// The Prometheus reporter: the report in the text exposition format 0.0.4, for node_exporter's textfile collector
// (docs/results-schema.md, "Prometheus"). One gauge family per metric (names and units: prometheus_names.hpp), one
// sample per row that has it, labelled with what tells the row apart; each verdict as dgx_verdict{verdict="..."} 1;
// the report's exit code, time and dgxhost's build. No sample carries a timestamp: the textfile collector refuses
// files that do. Two rows that would make one series are an error, never a silently dropped sample.
#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "dgx/core/report/prometheus_names.hpp"
#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"
#include "dgx/core/support/utc_time.hpp"

namespace dgx {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

struct Family {
  std::string name;
  std::string help;
  std::string meaning;  // what its samples are: two metrics that map to one name must mean the same
  std::vector<Sample> samples;
  std::map<std::string, std::string> origins;  // the series' labels (sorted) -> the row that made it
};

std::string series_text(const std::string& name, const Labels& labels) {
  std::string out = name;
  if (labels.empty()) {
    return out;
  }
  out += "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out += (i == 0 ? "" : ",") + labels[i].first + "=\"" + prometheus_label_value(labels[i].second) + "\"";
  }
  return out + "}";
}

// The exposition: families in the order they first appear, each sample checked against its family's series.
class Exposition {
public:
  std::optional<Failure> add(const std::string& name, const std::string& help, const std::string& meaning,
                             Labels labels, double value, const std::string& origin) {
    auto family = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == name; });
    if (family == families_.end()) {
      families_.push_back({name, help, meaning, {}, {}});
      family = std::prev(families_.end());
    } else if (family->meaning != meaning) {
      return Failure{ExitCode::usage, meaning + " and " + family->meaning + " would both be the Prometheus family " +
                                          name + "; write this report as json or csv"};
    }
    Labels sorted = labels;
    std::sort(sorted.begin(), sorted.end());
    const auto [seen, fresh] = family->origins.emplace(series_text("", sorted), origin);
    if (!fresh) {
      return Failure{ExitCode::usage, seen->second + " and " + origin + " would be the same Prometheus series " +
                                          series_text(name, labels) +
                                          ": nothing in their labels (plugin, workload, mode, table, case, the config "
                                          "keys that vary, size, systems) tells them apart; write this report as "
                                          "json or csv"};
    }
    family->samples.push_back({std::move(labels), value});
    return std::nullopt;
  }

  [[nodiscard]] std::string text() const {
    std::string out;
    for (const Family& f : families_) {
      out += "# HELP " + f.name + " " + prometheus_help(f.help) + "\n# TYPE " + f.name + " gauge\n";
      for (const Sample& s : f.samples) {
        out += series_text(f.name, s.labels) + " " + prometheus_value(s.value) + "\n";
      }
    }
    return out;
  }

private:
  std::vector<Family> families_;
};

// A string of the context block ({"host", "hostname"}: context.host.hostname); empty when absent.
std::string context_text(const Report& report, std::initializer_list<const char*> path) {
  const json::Value* at = nullptr;
  const json::Object* object = &report.context;
  for (const char* key : path) {
    at = object != nullptr ? object->find(key) : nullptr;
    if (at == nullptr) {
      return {};
    }
    object = at->is_object() ? &at->as_object() : nullptr;
  }
  return at != nullptr && at->is_string() ? at->as_string() : std::string();
}

void add_label(Labels& labels, const std::string& name, const std::string& value) {
  if (!value.empty()) {  // an empty value is no label in Prometheus
    labels.emplace_back(name, value);
  }
}

// The labels every sample has: the host the report was made on and the preset, which tell reports apart when
// several files of one textfile folder describe the same workload.
Labels context_labels(const Report& report) {
  Labels labels;
  add_label(labels, "host", context_text(report, {"host", "hostname"}));
  add_label(labels, "preset", context_text(report, {"preset"}));
  return labels;
}

// Label names of the row's own: a config key's label must not take one of them.
constexpr std::array<std::string_view, 14> kRowLabels{"host",    "preset",   "plugin", "workload", "mode",
                                                      "table",   "case",     "size",   "systems",  "verdict",
                                                      "version", "revision", "job",    "instance"};

bool scalar(const json::Value& v) { return v.is_string() || v.is_number() || v.is_bool(); }

// The config keys that tell rows apart (scalar ones that vary between rows) and the label each gets: the key's
// last part (parallel.tp: tp) when that is unique and no row label, else the whole key in snake_case.
std::vector<std::pair<std::string, std::string>> config_labels(const std::vector<ResultRow>& rows) {
  std::vector<const ResultRow*> all;
  for (const ResultRow& r : rows) {
    all.push_back(&r);
  }
  std::vector<std::string> keys;
  for (const std::string& key : varying_config_keys(all, true)) {
    const bool scalars = std::all_of(all.begin(), all.end(), [&](const ResultRow* r) {
      const json::Value* v = r->config.find(key);
      return v == nullptr || scalar(*v);
    });
    if (scalars) {
      keys.push_back(key);
    }
  }
  const auto short_name = [](const std::string& key) { return prometheus_label_name(key.substr(key.rfind('.') + 1)); };
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& key : keys) {
    const bool shared = std::count_if(keys.begin(), keys.end(),
                                      [&](const std::string& k) { return short_name(k) == short_name(key); }) > 1;
    const auto free = [&](const std::string& name) {
      return std::find(kRowLabels.begin(), kRowLabels.end(), name) == kRowLabels.end() &&
             std::none_of(out.begin(), out.end(), [&](const auto& taken) { return taken.second == name; });
    };
    std::string name = shared ? prometheus_label_name(key) : short_name(key);
    if (!free(name)) {
      name = prometheus_label_name(key);
    }
    for (int n = 1; !free(name); ++n) {  // "mode" (a row label), or "a.b_c" after "a_b.c": never one name twice
      name = "config_" + prometheus_label_name(key) + (n == 1 ? "" : "_" + std::to_string(n));
    }
    out.emplace_back(key, name);
  }
  return out;
}

Labels row_labels(const Report& report, const ResultRow& row,
                  const std::vector<std::pair<std::string, std::string>>& config) {
  Labels labels = context_labels(report);
  add_label(labels, "plugin", row.plugin);
  add_label(labels, "workload", row.workload);
  add_label(labels, "mode", std::string(to_string(row.mode)));
  add_label(labels, "table", row.table == row.workload ? std::string() : row.table);
  add_label(labels, "case", row.label);
  for (const auto& [key, name] : config) {
    if (row.config.find(key) != nullptr) {
      add_label(labels, name, row.config_text(key));
    }
  }
  add_label(labels, "size", case_size(row));
  // The platform check's plan lists one reference for each system it applies to: the systems tell them apart.
  const Field* systems = row.find_field("systems");
  add_label(labels, "systems", systems != nullptr ? systems->value : std::string());
  return labels;
}

std::string origin_of(const ResultRow& row, std::size_t index) {
  const std::string& group = row.table.empty() ? row.workload : row.table;
  return "row " + std::to_string(index + 1) + " (" + group + ", " +
         (row.label.empty() ? std::string(to_string(row.mode)) : row.label) + ")";
}

std::optional<Failure> add_row(Exposition& out, const Report& report, const ResultRow& row, std::size_t index,
                               const std::vector<std::pair<std::string, std::string>>& config) {
  const Labels labels = row_labels(report, row, config);
  const std::string origin = origin_of(row, index);
  const bool sized = !case_size(row).empty();
  for (const Metric& m : row.metrics) {
    if (m.name == "size" && sized) {
      continue;  // the size label
    }
    const PrometheusName name = prometheus_name(m.name, m.unit);
    const std::string meaning = "metric " + m.name + (name.unit.empty() ? "" : " (" + name.unit + ")");
    const MetricDeclaration* declared = declared_metric(report.workloads, row, m.name);
    const std::string help =
        "dgxhost " + meaning + (declared != nullptr && !declared->help.empty() ? ": " + declared->help : "");
    if (auto f = out.add(name.name, help, meaning, labels, m.value * name.factor, origin)) {
      return f;
    }
  }
  for (const Field& f : row.fields) {
    if (f.key != "verdict" && !f.key.starts_with("verdict.")) {
      continue;
    }
    Labels with_verdict = labels;
    with_verdict.emplace_back("verdict", f.value);
    const std::string name = prometheus_name(f.key, "").name;
    const std::string help = "the row's info." + f.key + " (docs/results-schema.md): 1 for the verdict its label names";
    if (auto failure = out.add(name, help, "info." + f.key, with_verdict, 1, origin)) {
      return failure;
    }
  }
  return std::nullopt;
}

// The context's time ("2026-01-02T03:04:05Z") as Unix seconds.
std::optional<double> unix_time(const std::string& iso) {
  const auto seconds = parse_iso_utc(iso);
  return seconds ? std::optional<double>(static_cast<double>(*seconds)) : std::nullopt;
}

void add_report(Exposition& out, const Report& report) {
  Labels labels = context_labels(report);
  add_label(labels, "workload", context_text(report, {"workload"}));
  out.add("dgx_report_exit_code", "dgxhost's exit code for this report (0 success; README, Exit codes)", "exit code",
          labels, report.exit_code, "the report");
  if (const auto time = unix_time(context_text(report, {"time"}))) {
    out.add("dgx_report_timestamp_seconds", "when the report started, in Unix seconds (context.time)", "time", labels,
            *time, "the report");
  }
  Labels build = labels;
  add_label(build, "version", context_text(report, {"dgxhost", "version"}));
  add_label(build, "revision", context_text(report, {"dgxhost", "git_revision"}));
  out.add("dgx_build_info", "the dgxhost that wrote this report: its version and git revision", "build", build, 1,
          "the report");
}

}  // namespace

Expected<std::string> render_prometheus(const Report& report) {
  Exposition out;
  add_report(out, report);
  const auto config = config_labels(report.rows);
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    if (auto failure = add_row(out, report, report.rows[i], i, config)) {
      return *failure;
    }
  }
  return out.text();
}

}  // namespace dgx
