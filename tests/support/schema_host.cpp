#include "schema_host.hpp"

#include <cstdint>
#include <stdexcept>

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

namespace dgx::testing {

namespace {

SchemaHost& self(void* ctx) { return static_cast<SchemaHost&>(*static_cast<FakeHost*>(ctx)); }

std::string unquote(const std::string& literal) {
  return literal.size() >= 2 && literal.front() == '"' ? literal.substr(1, literal.size() - 2) : literal;
}

std::vector<std::string> list_items(const std::string& literal) {
  std::vector<std::string> items;
  std::string inner = literal.substr(1, literal.size() - 2);
  std::size_t start = 0;
  while (start < inner.size()) {
    std::size_t end = inner.find(',', start);
    if (end == std::string::npos) end = inner.size();
    std::string item = inner.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    if (!item.empty()) items.push_back(item);
    start = end + 1;
  }
  return items;
}

/// A schema default (a TOML literal) as the FakeHost value the host would hand out.
FakeHost::Value parse_default(const dgx::sdk::Param& p) {
  const std::string& v = p.default_value;
  switch (p.type) {
  case DGX_PARAM_BOOL: return v == "true";
  case DGX_PARAM_INT: return static_cast<std::int64_t>(std::stoll(v));
  case DGX_PARAM_FLOAT: return std::stod(v);
  case DGX_PARAM_STRING: return unquote(v);
  case DGX_PARAM_INT_LIST: {
    std::vector<std::int64_t> out;
    for (const std::string& item : list_items(v)) out.push_back(std::stoll(item));
    return out;
  }
  case DGX_PARAM_STRING_LIST: {
    std::vector<std::string> out;
    for (const std::string& item : list_items(v)) out.push_back(unquote(item));
    return out;
  }
  default: throw std::logic_error("no default parser for " + p.key);
  }
}

/// A TOML value as the FakeHost value the host would hand out (arrays by their first element's type).
FakeHost::Value from_toml(const toml::node& node) {
  if (const auto* b = node.as_boolean()) return b->get();
  if (const auto* i = node.as_integer()) return static_cast<std::int64_t>(i->get());
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* s = node.as_string()) return s->get();
  const toml::array& array = *node.as_array();
  if (!array.empty() && array[0].is_string()) {
    std::vector<std::string> out;
    for (const toml::node& item : array) out.push_back(item.as_string()->get());
    return out;
  }
  if (!array.empty() && array[0].is_floating_point()) {
    std::vector<double> out;
    for (const toml::node& item : array) out.push_back(item.value_or(0.0));
    return out;
  }
  std::vector<std::int64_t> out;
  for (const toml::node& item : array) out.push_back(item.value_or(std::int64_t{0}));
  return out;
}

void flatten(SchemaHost& host, const toml::table& table, const std::string& prefix) {
  for (const auto& [key, node] : table) {
    const std::string dotted = prefix + std::string(key.str());
    if (dotted == "preset") continue;
    if (const auto* sub = node.as_table())
      flatten(host, *sub, dotted + ".");
    else
      host.set(dotted, from_toml(node));
  }
}

}  // namespace

SchemaHost::SchemaHost(const std::vector<dgx::sdk::Param>& params) {
  for (const dgx::sdk::Param& p : params)
    if (!p.default_value.empty()) set(p.key, parse_default(p));
  api_ = *FakeHost::api();
  base_emit_row_ = api_.emit_row;
  api_.emit_row = [](void* ctx, const dgx_result_row* row) -> dgx_status {
    SchemaHost& h = self(ctx);
    Visibility v;
    v.table = row->table != nullptr ? row->table : "";
    for (std::uint32_t i = 0; i < row->config_count; ++i)
      if (row->config[i].flags & DGX_CONFIG_HIDDEN) v.hidden_config.insert(row->config[i].key);
    for (std::uint32_t i = 0; i < row->metric_count; ++i)
      if (row->metrics[i].flags & DGX_METRIC_HIDDEN) v.hidden_metrics.insert(row->metrics[i].name);
    for (std::uint32_t i = 0; i < row->field_count; ++i)
      if (row->fields[i].flags & DGX_FIELD_HIDDEN) v.hidden_fields.insert(row->fields[i].key);
    h.visibility.push_back(std::move(v));
    return h.base_emit_row_(ctx, row);
  };
  api_.emit_note = [](void* ctx, dgx_note_placement placement, const char* title, const char* text) -> dgx_status {
    self(ctx).placed_notes.push_back({placement == DGX_NOTE_AFTER, title, text});
    return DGX_OK;
  };
}

void SchemaHost::apply_toml(std::string_view text) { flatten(*this, toml::parse(text), ""); }

std::string SchemaHost::note(const std::string& title) const {
  for (const PlacedNote& n : placed_notes)
    if (n.title == title) return n.text;
  return "";
}

}  // namespace dgx::testing
