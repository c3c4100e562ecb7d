#include "pretrain_host.hpp"

#include <cstdint>
#include <stdexcept>

#include "dgx/llm/workload_preset.hpp"
#include "params.hpp"

namespace dgx::pretrain::testing {

namespace {

PretrainHost& self(void* ctx) { return static_cast<PretrainHost&>(*static_cast<dgx::testing::FakeHost*>(ctx)); }

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
dgx::testing::FakeHost::Value parse_default(const dgx::sdk::Param& p) {
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

}  // namespace

PretrainHost::PretrainHost() {
  for (const dgx::sdk::Param& p : pretrain_params())
    if (!p.default_value.empty()) set(p.key, parse_default(p));
  api_ = *FakeHost::api();
  base_emit_row_ = api_.emit_row;
  api_.emit_row = [](void* ctx, const dgx_result_row* row) -> dgx_status {
    PretrainHost& h = self(ctx);
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

void PretrainHost::use_preset(const std::string& name) {
  const auto p = llm::find_workload_preset(name);
  if (!p) throw std::runtime_error(p.error().message);
  std::vector<std::string> precisions;
  for (const llm::Precision precision : p->precisions) precisions.emplace_back(llm::to_string(precision));
  set(key::model, p->model);
  set(key::system, p->system);
  set(key::precision, precisions);
  set(key::gpus, std::int64_t{p->gpus});
  set(key::tokens, p->train.tokens);
  set(key::seq_len, std::int64_t{p->train.seq_len});
  set(key::mbs, std::int64_t{p->train.mbs});
  set(key::gbs, std::int64_t{p->train.gbs});
  set(key::recompute, std::string(llm::to_string(p->train.recompute)));
  set(key::tp, std::int64_t{p->train.layout.tp});
  set(key::pp, std::int64_t{p->train.layout.pp});
  set(key::cp, std::int64_t{p->train.layout.cp});
  set(key::vp, std::int64_t{p->train.layout.vp});
  set(key::ep, std::int64_t{p->train.layout.ep});
  set(key::gpus_min, std::int64_t{p->explore_gpus_min});
  set(key::gpus_max, std::int64_t{p->explore_gpus_max});
  set(key::gbs_per_gpu,
      std::int64_t{p->explore_batch.kind == llm::BatchRule::Kind::per_gpu ? p->explore_batch.value : 0});
}

std::string PretrainHost::note(const std::string& title) const {
  for (const PlacedNote& n : placed_notes)
    if (n.title == title) return n.text;
  return "";
}

}  // namespace dgx::pretrain::testing
