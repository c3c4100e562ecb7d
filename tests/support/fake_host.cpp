#include "fake_host.hpp"

#include <chrono>

namespace dgx::testing {

namespace {

FakeHost& self(void* ctx) { return *static_cast<FakeHost*>(ctx); }

template <typename T> dgx_status get(void* ctx, const char* key, T* out) {
  auto it = self(ctx).config.find(key);
  if (it == self(ctx).config.end()) return DGX_ERR_NOT_FOUND;
  if (const auto* v = std::get_if<T>(&it->second); v != nullptr) {
    *out = *v;
    return DGX_OK;
  }
  return DGX_ERR_INVALID_ARGUMENT;
}

template <typename T, typename Out>
dgx_status get_list(void* ctx, const char* key, Out* out, std::uint64_t capacity, std::uint64_t* count) {
  auto it = self(ctx).config.find(key);
  if (it == self(ctx).config.end()) return DGX_ERR_NOT_FOUND;
  const auto* v = std::get_if<std::vector<T>>(&it->second);
  if (v == nullptr) return DGX_ERR_INVALID_ARGUMENT;
  *count = v->size();
  for (std::uint64_t i = 0; i < capacity && i < v->size(); ++i) {
    if constexpr (std::is_same_v<T, std::string>)
      out[i] = (*v)[i].c_str();
    else
      out[i] = (*v)[i];
  }
  return DGX_OK;
}

}  // namespace

FakeHost::FakeHost() {
  api_.struct_size = sizeof api_;
  api_.abi_version = DGX_ABI_VERSION;
  api_.ctx = this;
  api_.host_version = "test";
  api_.log = [](void* ctx, dgx_log_level, const char* message) { self(ctx).logs.emplace_back(message); };
  api_.config_get_bool = [](void* ctx, const char* key, std::int32_t* out) -> dgx_status {
    bool b = false;
    const dgx_status s = get<bool>(ctx, key, &b);
    *out = b ? 1 : 0;
    return s;
  };
  api_.config_get_int = [](void* ctx, const char* key, std::int64_t* out) -> dgx_status {
    return get<std::int64_t>(ctx, key, out);
  };
  api_.config_get_float = [](void* ctx, const char* key, double* out) -> dgx_status {
    std::int64_t i = 0;
    if (get<std::int64_t>(ctx, key, &i) == DGX_OK) {
      *out = static_cast<double>(i);
      return DGX_OK;
    }
    return get<double>(ctx, key, out);
  };
  api_.config_get_string = [](void* ctx, const char* key, const char** out) -> dgx_status {
    auto it = self(ctx).config.find(key);
    if (it == self(ctx).config.end()) return DGX_ERR_NOT_FOUND;
    const auto* s = std::get_if<std::string>(&it->second);
    if (s == nullptr) return DGX_ERR_INVALID_ARGUMENT;
    *out = s->c_str();
    return DGX_OK;
  };
  api_.config_get_int_list = [](void* ctx, const char* key, std::int64_t* out, std::uint64_t cap,
                                std::uint64_t* n) -> dgx_status {
    return get_list<std::int64_t>(ctx, key, out, cap, n);
  };
  api_.config_get_float_list = [](void* ctx, const char* key, double* out, std::uint64_t cap,
                                  std::uint64_t* n) -> dgx_status { return get_list<double>(ctx, key, out, cap, n); };
  api_.config_get_string_list = [](void* ctx, const char* key, const char** out, std::uint64_t cap,
                                   std::uint64_t* n) -> dgx_status {
    return get_list<std::string>(ctx, key, out, cap, n);
  };
  api_.config_is_set = [](void* ctx, const char* key) -> std::int32_t { return self(ctx).config.count(key) ? 1 : 0; };
  api_.clock_now = [](void*) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  api_.emit_row = [](void* ctx, const dgx_result_row* row) -> dgx_status {
    Row r{row->mode, {}, {}, {}};
    for (std::uint32_t i = 0; i < row->config_count; ++i) r.config[row->config[i].key] = row->config[i].value;
    for (std::uint32_t i = 0; i < row->metric_count; ++i)
      r.metrics[row->metrics[i].name] = {row->metrics[i].value, row->metrics[i].unit ? row->metrics[i].unit : ""};
    for (std::uint32_t i = 0; i < row->field_count; ++i) r.fields[row->fields[i].key] = row->fields[i].value;
    self(ctx).rows.push_back(std::move(r));
    return DGX_OK;
  };
  api_.add_metric = [](void* ctx, const dgx_metric* m) -> dgx_status {
    self(ctx).added_metrics[m->name] = {m->value, m->unit ? m->unit : ""};
    return DGX_OK;
  };
  api_.add_field = [](void* ctx, const dgx_field* f) -> dgx_status {
    self(ctx).added_fields[f->key] = f->value ? f->value : "";
    return DGX_OK;
  };
  api_.emit_note = [](void* ctx, dgx_note_placement, const char* title, const char* text) -> dgx_status {
    self(ctx).notes.push_back(std::string(title) + ": " + text);
    return DGX_OK;
  };
  api_.rank_info = [](void*, dgx_rank_info* out) -> dgx_status {
    out->rank = 0;
    out->world_size = 1;
    out->local_rank = 0;
    out->local_size = 1;
    out->launcher = "none";
    return DGX_OK;
  };
  api_.barrier = [](void*) -> dgx_status { return DGX_OK; };
  api_.broadcast = [](void*, void*, std::uint64_t, std::int32_t) -> dgx_status { return DGX_OK; };
  api_.all_reduce_f64 = [](void*, double*, std::uint64_t, dgx_reduce_op) -> dgx_status { return DGX_OK; };
  api_.progress = [](void*, double, const char*) {};
  api_.cancel_requested = [](void* ctx) -> std::int32_t { return self(ctx).cancel ? 1 : 0; };
  api_.find_data_file = [](void*, const char*, char*, std::uint64_t) -> dgx_status { return DGX_ERR_NOT_FOUND; };
}

}  // namespace dgx::testing
