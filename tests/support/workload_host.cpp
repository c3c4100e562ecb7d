#include "workload_host.hpp"

#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace dgx::testing {

namespace {

WorkloadHost& self(void* ctx) { return static_cast<WorkloadHost&>(*static_cast<FakeHost*>(ctx)); }

std::string trimmed(std::string text) {
  text.erase(0, text.find_first_not_of(" \t"));
  text.erase(text.find_last_not_of(" \t\r") + 1);
  return text;
}

/// The value part of a `key = value  # comment` line, without the comment.
std::string strip_comment(const std::string& value) {
  bool quoted = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '"') {
      quoted = !quoted;
    }
    if (value[i] == '#' && !quoted) {
      return value.substr(0, i);
    }
  }
  return value;
}

std::string unquote(const std::string& literal) {
  return literal.size() >= 2 && literal.front() == '"' ? literal.substr(1, literal.size() - 2) : literal;
}

std::vector<std::string> list_items(const std::string& literal) {
  std::vector<std::string> items;
  std::string inner = literal.substr(1, literal.size() - 2);
  std::size_t start = 0;
  while (start < inner.size()) {
    std::size_t end = inner.find(',', start);
    if (end == std::string::npos) {
      end = inner.size();
    }
    std::string item = trimmed(inner.substr(start, end - start));
    if (!item.empty()) {
      items.push_back(item);
    }
    start = end + 1;
  }
  return items;
}

/// A TOML literal as the FakeHost value the host would hand out for a parameter of this type.
FakeHost::Value parse_literal(dgx_param_type type, const std::string& key, const std::string& v) {
  switch (type) {
  case DGX_PARAM_BOOL: return v == "true";
  case DGX_PARAM_INT: return static_cast<std::int64_t>(std::stoll(v));
  case DGX_PARAM_FLOAT: return std::stod(v);
  case DGX_PARAM_STRING: return unquote(v);
  case DGX_PARAM_INT_LIST: {
    std::vector<std::int64_t> out;
    for (const std::string& item : list_items(v)) {
      out.push_back(std::stoll(item));
    }
    return out;
  }
  case DGX_PARAM_STRING_LIST: {
    std::vector<std::string> out;
    for (const std::string& item : list_items(v)) {
      out.push_back(unquote(item));
    }
    return out;
  }
  default: throw std::logic_error("no literal parser for " + key);
  }
}

}  // namespace

WorkloadHost::WorkloadHost(std::vector<dgx::sdk::Param> schema) : schema_(std::move(schema)) {
  for (const dgx::sdk::Param& p : schema_) {
    if (!p.default_value.empty()) {
      set(p.key, parse_literal(p.type, p.key, p.default_value));
    }
  }
  api_ = *FakeHost::api();
  base_emit_row_ = api_.emit_row;
  api_.emit_row = [](void* ctx, const dgx_result_row* row) -> dgx_status {
    WorkloadHost& h = self(ctx);
    Visibility v;
    v.table = row->table != nullptr ? row->table : "";
    for (std::uint32_t i = 0; i < row->config_count; ++i) {
      if (row->config[i].flags & DGX_CONFIG_HIDDEN) {
        v.hidden_config.insert(row->config[i].key);
      }
    }
    for (std::uint32_t i = 0; i < row->metric_count; ++i) {
      if (row->metrics[i].flags & DGX_METRIC_HIDDEN) {
        v.hidden_metrics.insert(row->metrics[i].name);
      }
    }
    for (std::uint32_t i = 0; i < row->field_count; ++i) {
      if (row->fields[i].flags & DGX_FIELD_HIDDEN) {
        v.hidden_fields.insert(row->fields[i].key);
      }
    }
    h.visibility.push_back(std::move(v));
    return h.base_emit_row_(ctx, row);
  };
  api_.emit_note = [](void* ctx, dgx_note_placement placement, const char* title, const char* text) -> dgx_status {
    self(ctx).placed_notes.push_back({placement == DGX_NOTE_AFTER, title, text});
    return DGX_OK;
  };
}

void WorkloadHost::set_literal(const std::string& key, const std::string& literal) {
  for (const dgx::sdk::Param& p : schema_) {
    if (p.key == key) {
      set(key, parse_literal(p.type, key, literal));
      return;
    }
  }
  throw std::invalid_argument("no parameter " + key + " in the schema");
}

void WorkloadHost::use_preset_text(std::string_view toml) {
  std::istringstream lines{std::string(toml)};
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || line[0] == '[' || eq == std::string::npos) {
      continue;
    }
    const std::string key = trimmed(line.substr(0, eq));
    if (key.rfind("preset.", 0) != 0) {
      set_literal(key, trimmed(strip_comment(line.substr(eq + 1))));
    }
  }
}

std::string WorkloadHost::note(const std::string& title) const {
  for (const PlacedNote& n : placed_notes) {
    if (n.title == title) {
      return n.text;
    }
  }
  return "";
}

}  // namespace dgx::testing
