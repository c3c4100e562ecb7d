#include "dgx/core/report/listing.hpp"

#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/report/table.hpp"
#include "dgx/core/report/wrap.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string search_path_line(const std::vector<SearchPath>& paths) {
  std::vector<std::string> parts;
  for (const SearchPath& p : paths) {
    parts.push_back(printable(p.path.string()) + " (" + p.origin + ")");
  }
  return "plugin search path: " + text::join(parts, ", ");
}

std::string preset_source(const PresetInfo& p, const PluginRegistry& registry) {
  if (!p.file.empty()) {
    return printable(p.file);
  }
  for (const auto& plugin : registry.plugins()) {
    for (const PresetInfo& q : plugin->presets) {
      if (&q == &p) {
        return "embedded in plugin " + plugin->name;
      }
    }
  }
  return "embedded";
}

json::Value param_json(const ParamSpec& spec, const ResolvedEntry* entry) {
  json::Object o;
  o.set("key", spec.key);
  o.set("type", std::string(to_string(spec.type)));
  o.set("default", spec.default_value.value_or(json::Value()));
  if (entry != nullptr && entry->is_set) {
    o.set("value", entry->value);
    o.set("source", entry->where.describe());
  }
  if (!spec.choices.empty()) {
    o.set("choices", json::Array(spec.choices.begin(), spec.choices.end()));
  }
  if (!spec.unit.empty()) {
    o.set("unit", spec.unit);
  }
  o.set("required", spec.required);
  o.set("help", spec.help);
  return o;
}

}  // namespace

std::string list_text(const PluginRegistry& registry, const std::vector<SearchPath>& plugin_paths) {
  std::string out = "Plugins (" + std::to_string(registry.plugins().size()) + "):\n";
  for (const auto& p : registry.plugins()) {
    out += "  " + p->name + " " + p->version + "  ABI " + abi_version_string(p->abi_version) + "  " + p->vendor + "  " +
           printable(p->file.string()) + "\n";
    if (!p->description.empty()) {
      out += "    " + p->description + "\n";
    }
    for (const WorkloadInfo& w : p->workloads) {
      const std::string precisions = w.precisions.empty() ? "-" : text::join(w.precisions, ",");
      out += "    - " + w.name + "  [" + std::string(kind_name(w.kind)) + "; " + w.mode_list() + "; " + precisions +
             "]  " + w.summary + "\n";
    }
  }
  const auto presets = registry.presets();
  out += "\nPresets (" + std::to_string(presets.size()) + "):\n";
  for (const PresetInfo* p : presets) {
    out += "  " + p->name + " -> " + p->workload + "  " + p->summary + "  (" + preset_source(*p, registry) + ")\n";
  }
  if (!registry.rejections().empty()) {
    out += "\nRejected plugin files (" + std::to_string(registry.rejections().size()) + "):\n";
    for (const PluginRejection& r : registry.rejections()) {
      out += "  " + r.line() + "\n";
    }
  }
  out += "\n" + search_path_line(plugin_paths) + "\n";
  return out;
}

json::Value list_json(const PluginRegistry& registry, const std::vector<SearchPath>& plugin_paths) {
  json::Array plugins;
  for (const auto& p : registry.plugins()) {
    json::Object o;
    o.set("name", p->name);
    o.set("version", p->version);
    o.set("vendor", p->vendor);
    o.set("description", p->description);
    o.set("abi", abi_version_string(p->abi_version));
    o.set("file", p->file.string());
    json::Array workloads;
    for (const WorkloadInfo& w : p->workloads) {
      json::Object wo;
      wo.set("name", w.name);
      wo.set("kind", std::string(kind_name(w.kind)));
      wo.set("modes", w.mode_list());
      wo.set("precisions", json::Array(w.precisions.begin(), w.precisions.end()));
      wo.set("summary", w.summary);
      workloads.push_back(std::move(wo));
    }
    o.set("workloads", std::move(workloads));
    plugins.push_back(std::move(o));
  }
  json::Array presets;
  for (const PresetInfo* p : registry.presets()) {
    json::Object o;
    o.set("name", p->name);
    o.set("workload", p->workload);
    o.set("summary", p->summary);
    o.set("source", preset_source(*p, registry));
    presets.push_back(std::move(o));
  }
  json::Array rejected;
  for (const PluginRejection& r : registry.rejections()) {
    json::Object o;
    o.set("file", r.file.string());
    o.set("reason", r.reason);
    rejected.push_back(std::move(o));
  }
  std::vector<std::string> search;
  for (const SearchPath& s : plugin_paths) {
    search.push_back(s.path.string());
  }
  json::Object doc;
  doc.set("plugins", std::move(plugins));
  doc.set("presets", std::move(presets));
  doc.set("rejected", std::move(rejected));
  doc.set("plugin_search_path", json::Array(search.begin(), search.end()));
  return doc;
}

namespace {

/// `text` wrapped to `width` (0: one line), every line after `indent`.
std::string wrapped_paragraph(const std::string& indent, const std::string& text, std::size_t width) {
  std::string lines;
  const std::size_t room = width > indent.size() + 20 ? width - indent.size() : 20;
  for (const std::string& line : width == 0 ? std::vector<std::string>{text} : wrap_words(text, room)) {
    lines += indent + line + "\n";
  }
  return lines;
}

constexpr std::size_t kLeastHelpWidth = 40;  // narrower, a help column reads as a list of words

/// `t` for a reader `width` columns wide (0: one line per row, unwrapped): its last column (help) wrapped beside the
/// others while that leaves it kLeastHelpWidth columns, a wrapped cell continuing on rows of its own; else each row's
/// help on lines of its own under the row, indented, so that no line is wider than `width` (the wide defaults of a
/// model's parameters would push a help column past a 100-column page).
std::string render_help_table(const Table& t, std::size_t width) {
  if (width == 0 || t.headers.empty()) {
    return render_text_table(t);
  }
  const std::size_t last = t.headers.size() - 1;
  std::size_t used = 0;
  for (std::size_t c = 0; c < last; ++c) {
    std::size_t w = text::display_width(t.headers[c]);
    for (const auto& row : t.cells) {
      w = std::max(w, text::display_width(row[c]));
    }
    used += w + 2;  // the column and the two spaces after it
  }
  Table out = t;
  out.cells.clear();
  if (width >= used + kLeastHelpWidth) {
    for (const auto& row : t.cells) {
      const std::vector<std::string> lines = wrap_words(row[last], width - used);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        std::vector<std::string> cells = i == 0 ? row : std::vector<std::string>(row.size());
        cells[last] = lines[i];
        out.cells.push_back(std::move(cells));
      }
    }
    return render_text_table(out);
  }
  out.headers.pop_back();
  out.right_aligned.resize(last);
  for (const auto& row : t.cells) {
    out.cells.emplace_back(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(last));
  }
  const std::string table = render_text_table(out);  // the header, its rule, then one line per row
  std::string text;
  std::size_t line = 0;
  for (std::size_t at = 0; at < table.size(); ++line) {
    const std::size_t end = table.find('\n', at);
    text += table.substr(at, end + 1 - at);
    if (line >= 2 && !t.cells[line - 2][last].empty()) {
      for (const std::string& help : wrap_words(t.cells[line - 2][last], width > 24 ? width - 4 : 20)) {
        text += "    " + help + "\n";
      }
    }
    at = end + 1;
  }
  return text;
}

}  // namespace

/// --describe into a pipe or a file (less, a saved reference): the width a reader's window shows whole.
constexpr std::size_t kPipedDescribeWidth = 100;

namespace {

// What the workload declares of its rows (ABI 1.1): its metrics, the keys that identify a run, its charts.
std::string declarations_text(const WorkloadDeclarations& d, std::size_t width) {
  std::string out;
  if (!d.metrics.empty()) {
    Table t;
    t.headers = {"metric", "unit", "better", "help"};
    t.right_aligned.assign(4, false);
    for (const MetricDeclaration& m : d.metrics) {
      t.cells.push_back({m.name, m.unit, std::string(better_name(m.better)), m.help});
    }
    out += "\nMetrics (how compare and history judge them):\n" + render_help_table(t, width);
  }
  const auto paragraph = [&](const std::string& text) { return "\n" + wrapped_paragraph("", text, width); };
  if (d.identity_keys) {
    out += paragraph("Identity (a run of another value of these keys is another series; other keys are context): " +
                     text::join(*d.identity_keys, ", "));
  }
  if (!d.charts.empty()) {
    std::vector<std::string> titles;
    for (const ChartDeclaration& c : d.charts) {
      titles.push_back(c.title);
    }
    out += paragraph("Charts (HTML report): " + text::join(titles, "; "));
  }
  return out;
}

}  // namespace

std::string describe_text(const Target& target, const ResolvedConfig& config) {
  const WorkloadInfo& w = *target.workload;
  const std::size_t width = reading_width(kPipedDescribeWidth);
  const auto paragraph = [width](const std::string& indent, const std::string& text) {
    return wrapped_paragraph(indent, text, width);
  };
  std::string out = paragraph("", w.name + " (plugin " + w.plugin->name + " " + w.plugin->version + ", " +
                                      printable(w.plugin->file.string()) + ")");
  if (target.preset != nullptr) {
    out += paragraph("", "preset " + target.preset->name + ": " + target.preset->summary);
  }
  out += paragraph("  ", w.summary);
  out += paragraph("  ", "kind " + std::string(kind_name(w.kind)) + "; modes " + w.mode_list() + "; precisions " +
                             (w.precisions.empty() ? "-" : text::join(w.precisions, ", ")));

  Table t;
  t.headers = {"key", "type", "default", "value", "help"};
  t.right_aligned.assign(5, false);
  for (const ResolvedEntry& e : config.entries()) {
    const ParamSpec& s = *e.spec;
    std::string help = s.help;
    if (!s.unit.empty()) {
      help += " [" + s.unit + "]";
    }
    const bool sizes = s.unit == "B" && (s.type == ParamType::integer || s.type == ParamType::int_list);
    if (sizes) {
      help += " (64K, 1M, 2G, 1T accepted)";
    }
    if (!s.choices.empty()) {
      help += " (" + text::join(s.choices, "|") + ")";
    }
    if (s.required) {
      help += " (required)";
    }
    // Wrapped to a terminal, where a value came from (a path, often long) joins the help column.
    const std::string where = e.is_set ? " (" + e.where.describe() + ")" : "";
    t.cells.push_back({s.key, std::string(to_string(s.type)), s.default_value ? to_toml_literal(*s.default_value) : "-",
                       e.is_set ? to_toml_literal(e.value) + (width == 0 ? where : "") : "",
                       width == 0 || where.empty() ? help : help + " [set by " + e.where.describe() + "]"});
  }
  out += "\nParameters (runner.* are the host's measurement settings):\n" + render_help_table(t, width);
  return out + declarations_text(w.declarations, width);
}

json::Value describe_json(const Target& target, const ResolvedConfig& config) {
  const WorkloadInfo& w = *target.workload;
  json::Object o;
  o.set("workload", w.name);
  o.set("plugin", w.plugin->name);
  o.set("plugin_version", w.plugin->version);
  if (target.preset != nullptr) {
    o.set("preset", target.preset->name);
  }
  o.set("kind", std::string(kind_name(w.kind)));
  o.set("modes", w.mode_list());
  o.set("precisions", json::Array(w.precisions.begin(), w.precisions.end()));
  o.set("summary", w.summary);
  json::Array params;
  for (const ResolvedEntry& e : config.entries()) {
    params.push_back(param_json(*e.spec, &e));
  }
  o.set("parameters", std::move(params));
  if (!w.declarations.empty()) {
    o.set("declarations", w.declarations.to_json());  // the results document's "workloads" entry
  }
  return o;
}

}  // namespace dgx
