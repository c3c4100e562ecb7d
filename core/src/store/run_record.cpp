// A report as the store keeps it (run_record.hpp): the run's context pulled out of the dgx.results/1 context
// block (docs/results-schema.md), and one point per metric of every row, keyed by the series it belongs to.
#include "run_record.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"

namespace dgx::detail {

namespace {

// System and GPU count are columns of the key of their own; verdict.* is the host's.
bool own_column(const std::string& key) {
  return key == "system" || key == "gpus" || text::starts_with(key, "verdict.");
}

const json::Value* path(const json::Object& object, std::initializer_list<std::string_view> keys) {
  const json::Object* at = &object;
  const json::Value* value = nullptr;
  for (const std::string_view key : keys) {
    if (at == nullptr || (value = at->find(key)) == nullptr) {
      return nullptr;
    }
    at = value->is_object() ? &value->as_object() : nullptr;
  }
  return value;
}

std::string text_at(const json::Object& object, std::initializer_list<std::string_view> keys) {
  const json::Value* v = path(object, keys);
  if (v == nullptr || v->is_null()) {
    return {};
  }
  return v->is_string() ? v->as_string() : json::write(*v, 0);
}

std::int64_t int_at(const json::Object& object, std::initializer_list<std::string_view> keys) {
  const json::Value* v = path(object, keys);
  return v != nullptr && v->is_number() ? static_cast<std::int64_t>(v->as_number()) : 0;
}

// A JSON value with every object's keys sorted: the same configuration written in another order hashes alike.
json::Value canonical(const json::Value& value) {
  if (value.is_array()) {
    json::Array out;
    for (const json::Value& v : value.as_array()) {
      out.push_back(canonical(v));
    }
    return out;
  }
  if (!value.is_object()) {
    return value;
  }
  std::map<std::string, json::Value> sorted;
  for (const auto& member : value.as_object()) {
    sorted.emplace(member.first, canonical(member.second));
  }
  json::Object out;
  for (auto& [key, v] : sorted) {
    out.set(key, std::move(v));
  }
  return out;
}

std::string hosts_of(const json::Object& context) {
  std::set<std::string> hosts;
  if (const json::Value* nodes = context.find("nodes"); nodes != nullptr && nodes->is_array()) {
    for (const json::Value& node : nodes->as_array()) {
      if (node.is_object()) {
        if (const json::Value* h = node.as_object().find("hostname"); h != nullptr && h->is_string()) {
          hosts.insert(h->as_string());
        }
      }
    }
  }
  if (hosts.empty()) {
    if (std::string h = text_at(context, {"host", "hostname"}); !h.empty()) {
      hosts.insert(std::move(h));
    }
  }
  return text::join(std::vector<std::string>(hosts.begin(), hosts.end()), ",");
}

std::string gpu_model_of(const json::Object& context) {
  const json::Value* devices = path(context, {"gpus", "devices"});
  if (devices == nullptr || !devices->is_array() || devices->as_array().empty() ||
      !devices->as_array().front().is_object()) {
    return {};
  }
  return text_at(devices->as_array().front().as_object(), {"name"});
}

RunContext context_of(const Report& report, const std::string& source) {
  const json::Object& c = report.context;
  RunContext run;
  run.time = parse_iso_utc(text_at(c, {"time"})).value_or(static_cast<std::int64_t>(std::time(nullptr)));
  run.plugin = text_at(c, {"plugin", "name"});
  if (run.plugin.empty() && !report.rows.empty()) {
    run.plugin = report.rows.front().plugin;
  }
  run.plugin_version = text_at(c, {"plugin", "version"});
  run.workload = text_at(c, {"workload"});
  run.preset = text_at(c, {"preset"});
  run.run_mode = text_at(c, {"mode"});
  run.system = text_at(c, {"config", "system"});
  run.gpu_model = gpu_model_of(c);
  run.hosts = hosts_of(c);
  run.gpus = int_at(c, {"config", "gpus"});
  if (run.gpus == 0 && !run.gpu_model.empty()) {
    run.gpus = std::max<std::int64_t>(int_at(c, {"ranks", "world_size"}), 1);
  }
  run.driver = text_at(c, {"software", "cuda_driver"});
  run.cuda = text_at(c, {"software", "cuda_runtime"});
  run.nccl = text_at(c, {"software", "nccl"});
  run.framework = text_at(c, {"config", "framework"});
  run.dgxhost_version = text_at(c, {"dgxhost", "version"});
  run.dgxhost_revision = text_at(c, {"dgxhost", "git_revision"});
  if (const json::Value* config = c.find("config")) {
    run.config = json::write(canonical(*config), 0);
    run.config_hash = fnv1a_hex(run.config);
  }
  run.exit_code = report.exit_code;
  run.source = source;
  return run;
}

bool imported(const ResultRow& row) {
  const Field* source = row.find_field("source");
  return source != nullptr && text::starts_with(source->value, "imported");
}

std::string row_mode(const ResultRow& row) { return imported(row) ? "imported" : std::string(to_string(row.mode)); }

// The row's configuration in its series key: the keys its workload declares to identify a run (identifies():
// without a declaration, all but framework, system and GPU count), and the declared identity metrics it carries (a
// message size); `with_context` keeps the rest of its configuration too (for rows that would otherwise be alike:
// an explore comparing framework releases or price providers).
json::Object identity_config(const ResultRow& row, const WorkloadDeclarations* declared, bool with_context) {
  json::Object config;
  for (const auto& member : row.config) {
    if (!own_column(member.first) && (with_context || identifies(declared, member.first))) {
      config.set(member.first, member.second);
    }
  }
  if (declared != nullptr && declared->identity_keys) {
    for (const std::string& key : *declared->identity_keys) {
      if (const Metric* m = row.find_metric(key); m != nullptr && !config.contains(key)) {
        const bool whole = m->value == std::floor(m->value) && std::abs(m->value) < 1e15;
        config.set(key, whole ? json::Value(static_cast<long long>(m->value)) : json::Value(m->value));
      }
    }
  }
  return config;
}

SeriesKey key_of(const ResultRow& row, const RunContext& run, const WorkloadDeclarations* declared, bool with_context) {
  SeriesKey key;
  key.plugin = row.plugin.empty() ? run.plugin : row.plugin;
  key.workload = row.workload.empty() ? run.workload : row.workload;
  key.table = row.table;
  key.label = row.label;
  key.mode = row_mode(row);
  const json::Object config = identity_config(row, declared, with_context);
  key.config = json::write(canonical(config), 0);
  key.config_hash = fnv1a_hex(key.config);
  const Field* system = row.find_field("system");
  key.system = system != nullptr ? system->value : row.config_text("system", run.system);
  const json::Value* gpus = row.config.find("gpus");
  key.gpus = gpus != nullptr && gpus->is_number() ? static_cast<std::int64_t>(gpus->as_number()) : run.gpus;
  if (key.mode == "measured") {  // on this machine: its GPUs and hosts are part of what was measured
    key.gpu_model = run.gpu_model;
    key.hosts = run.hosts;
  }
  return key;
}

std::string field_text(const ResultRow& row, std::string_view key) {
  const Field* f = row.find_field(key);
  return f != nullptr ? f->value : std::string();
}

}  // namespace

std::string fnv1a_hex(std::string_view bytes) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) {
    out[static_cast<std::size_t>(i)] = kHex[hash & 0xf];
  }
  return out;
}

std::string series_hash(const SeriesKey& k) {
  const std::string joined = text::join({k.plugin, k.workload, k.table, k.label, k.mode, k.metric, k.unit,
                                         k.config_hash, k.system, k.gpu_model, k.hosts, std::to_string(k.gpus)},
                                        "\x1f");
  return fnv1a_hex(joined);
}

RunRecord record_of(const Report& report, const std::string& source) {
  RunRecord record;
  record.context = context_of(report, source);
  record.document_hash = fnv1a_hex(json::write(report.to_json(), 0));
  record.rows = report.rows.size();
  // Rows alike but for their context (an explore comparing releases) keep it in their key.
  std::map<std::string, int> seen;
  for (const ResultRow& row : report.rows) {
    ++seen[series_hash(key_of(row, record.context, declarations_for(report.workloads, row), false))];
  }
  std::map<std::string, int> occurrence;
  for (const ResultRow& row : report.rows) {
    const WorkloadDeclarations* declared = declarations_for(report.workloads, row);
    SeriesKey key = key_of(row, record.context, declared, false);
    if (seen[series_hash(key)] > 1) {
      key = key_of(row, record.context, declared, true);
    }
    // Still alike (a report with the same row twice): the second is a series of its own, numbered.
    if (const int n = ++occurrence[series_hash(key)]; n > 1) {
      key.label += " #" + std::to_string(n);
    }
    for (const Metric& m : row.metrics) {
      RecordedPoint p;
      p.key = key;
      p.key.metric = m.name;
      p.key.unit = m.unit;
      const MetricDeclaration* d = declared != nullptr ? declared->find_metric(m.name) : nullptr;
      p.key.better = d != nullptr ? std::string(better_name(d->better)) : std::string();
      p.value = m.value;
      p.timing = field_text(row, "timing");
      p.verdict = field_text(row, "verdict");
      record.points.push_back(std::move(p));
    }
  }
  return record;
}

}  // namespace dgx::detail
