// A test harness for plugin authors (header-only): an in-process dgx_host_api backed by plain maps, and a driver
// that takes a workload through its lifecycle as dgxhost would. Unit-test a plugin without dgxhost:
//
//   dgx::sdk::testing::FakeHost fake;
//   fake.set("hello.elements", std::int64_t{1000});
//   const auto outcome = dgx::sdk::testing::measure(workload_descriptor, fake.api(), /*iterations=*/4);
//   // outcome.status == DGX_OK; fake.added_metrics["bandwidth"], fake.rows, fake.logs hold what it reported
//
// dgxhost's own tests use the same class. Like the host, it refuses metrics in units outside <dgx/sdk/units.hpp>
// (the call returns DGX_ERR_INVALID_ARGUMENT and the reason is in `logs`). It has no communicator: host_comm
// returns DGX_ERR_UNSUPPORTED. write_output_file records the files in `written_files` (nothing reaches the disk)
// when `output_folder` is set, as dgxhost --emit DIR would write them, and refuses the names dgxhost refuses.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <dgx/plugin.h>
#include <dgx/sdk/text.hpp>
#include <dgx/sdk/units.hpp>

namespace dgx::sdk::testing {

class FakeHost {
public:
  using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                             std::vector<std::string>>;

  FakeHost();
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  /// Gives config key `key` a value, as a preset, config file or --set would (config_is_set then says 1).
  void set(const std::string& key, Value value) { config[key] = std::move(value); }
  [[nodiscard]] const dgx_host_api* api() const { return &api_; }

  std::map<std::string, Value> config;
  struct Row {
    dgx_result_mode mode;
    std::map<std::string, std::string> config;  // TOML literals
    std::map<std::string, std::pair<double, std::string>> metrics;
    std::map<std::string, std::string> fields;
  };
  std::vector<Row> rows;                                                // emit_row
  std::map<std::string, std::pair<double, std::string>> added_metrics;  // add_metric: value, unit
  std::map<std::string, std::string> added_fields;                      // add_field: key -> value
  std::vector<std::string> notes;                                       // "title: text"
  std::vector<std::string> logs;                                        // log messages and refusals
  bool cancel = false;                                                  // what cancel_requested() answers
  std::vector<std::pair<std::string, std::string>> config_dirs;         // what config_dir() answers: path, origin
  std::string output_folder;  // what --emit named; empty: none (write_output_file answers DGX_ERR_UNSUPPORTED)
  struct WrittenFile {
    std::string text;
    std::uint32_t mode = 0;
  };
  std::map<std::string, WrittenFile> written_files;  // write_output_file: file name -> what it got

private:
  dgx_host_api api_{};
};

// The functions behind the fake host's table: free functions, so that a class derived from FakeHost (a test's
// own recording host) never finds them instead of its own helpers.
namespace fake_host_detail {

inline FakeHost& self(void* ctx) { return *static_cast<FakeHost*>(ctx); }

template <typename T> dgx_status get(void* ctx, const char* key, T* out) {
  auto it = self(ctx).config.find(key);
  if (it == self(ctx).config.end()) {
    return DGX_ERR_NOT_FOUND;
  }
  if (const auto* v = std::get_if<T>(&it->second); v != nullptr) {
    *out = *v;
    return DGX_OK;
  }
  return DGX_ERR_INVALID_ARGUMENT;
}

template <typename T, typename Out>
dgx_status get_list(void* ctx, const char* key, Out* out, std::uint64_t capacity, std::uint64_t* count) {
  auto it = self(ctx).config.find(key);
  if (it == self(ctx).config.end()) {
    return DGX_ERR_NOT_FOUND;
  }
  const auto* v = std::get_if<std::vector<T>>(&it->second);
  if (v == nullptr) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *count = v->size();
  for (std::uint64_t i = 0; i < capacity && i < v->size(); ++i) {
    if constexpr (std::is_same_v<T, std::string>) {
      out[i] = (*v)[i].c_str();
    } else {
      out[i] = (*v)[i];
    }
  }
  return DGX_OK;
}

// As dgxhost does: a metric in a unit outside <dgx/sdk/units.hpp> is refused.
inline bool accept_unit(void* ctx, const dgx_metric& m) {
  const std::string unit = m.unit != nullptr ? m.unit : "";
  if (is_known_unit(unit)) {
    return true;
  }
  self(ctx).logs.push_back("metric '" + std::string(m.name) + "' has unit '" + unit +
                           "', which dgxhost does not accept (expected one of " + known_units() + ")");
  return false;
}

inline dgx_status emit_row(void* ctx, const dgx_result_row* row) {
  FakeHost::Row r{row->mode, {}, {}, {}};
  for (std::uint32_t i = 0; i < row->config_count; ++i) {
    r.config[row->config[i].key] = row->config[i].value;
  }
  for (std::uint32_t i = 0; i < row->metric_count; ++i) {
    if (!accept_unit(ctx, row->metrics[i])) {
      return DGX_ERR_INVALID_ARGUMENT;
    }
    r.metrics[row->metrics[i].name] = {row->metrics[i].value, row->metrics[i].unit};
  }
  for (std::uint32_t i = 0; i < row->field_count; ++i) {
    r.fields[row->fields[i].key] = row->fields[i].value;
  }
  self(ctx).rows.push_back(std::move(r));
  return DGX_OK;
}

inline dgx_status add_metric(void* ctx, const dgx_metric* m) {
  if (!accept_unit(ctx, *m)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  self(ctx).added_metrics[m->name] = {m->value, m->unit};
  return DGX_OK;
}

inline dgx_status rank_info(void*, dgx_rank_info* out) {
  out->rank = 0;
  out->world_size = 1;
  out->local_rank = 0;
  out->local_size = 1;
  out->launcher = "none";
  return DGX_OK;
}

inline dgx_status refuse(dgx_error* error, dgx_status status, const std::string& message) {
  if (error != nullptr && error->message != nullptr && error->capacity > 0) {
    const std::size_t n = message.size() < error->capacity - 1 ? message.size() : error->capacity - 1;
    message.copy(error->message, n);
    error->message[n] = '\0';
  }
  return status;
}

// As dgxhost does: nothing without a folder (--emit DIR), a plain file name only.
inline dgx_status write_output_file(void* ctx, const char* name, const char* data, std::uint64_t size,
                                    std::uint32_t mode, dgx_error* error) {
  FakeHost& host = self(ctx);
  if (host.output_folder.empty()) {
    return refuse(error, DGX_ERR_UNSUPPORTED, "no folder for the workload's files: dgxhost --emit DIR names one");
  }
  if (name == nullptr) {
    return DGX_OK;
  }
  if (const std::string problem = text::file_name_problem(name); !problem.empty()) {
    return refuse(error, DGX_ERR_INVALID_ARGUMENT, "write_output_file: " + problem);
  }
  host.written_files[name] = {std::string(data != nullptr ? data : "", data != nullptr ? size : 0), mode};
  return DGX_OK;
}

inline double clock_now(void*) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace fake_host_detail

inline FakeHost::FakeHost() {
  using namespace fake_host_detail;
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
  api_.config_get_int = [](void* ctx, const char* key, std::int64_t* out) { return get<std::int64_t>(ctx, key, out); };
  api_.config_get_float = [](void* ctx, const char* key, double* out) -> dgx_status {
    std::int64_t i = 0;  // an integer reads as a float, as in dgxhost
    if (get<std::int64_t>(ctx, key, &i) == DGX_OK) {
      *out = static_cast<double>(i);
      return DGX_OK;
    }
    return get<double>(ctx, key, out);
  };
  api_.config_get_string = [](void* ctx, const char* key, const char** out) -> dgx_status {
    auto it = self(ctx).config.find(key);
    if (it == self(ctx).config.end()) {
      return DGX_ERR_NOT_FOUND;
    }
    const auto* s = std::get_if<std::string>(&it->second);
    if (s == nullptr) {
      return DGX_ERR_INVALID_ARGUMENT;
    }
    *out = s->c_str();
    return DGX_OK;
  };
  api_.config_get_int_list = [](void* ctx, const char* key, std::int64_t* out, std::uint64_t cap, std::uint64_t* n) {
    return get_list<std::int64_t>(ctx, key, out, cap, n);
  };
  api_.config_get_float_list = [](void* ctx, const char* key, double* out, std::uint64_t cap, std::uint64_t* n) {
    return get_list<double>(ctx, key, out, cap, n);
  };
  api_.config_get_string_list = [](void* ctx, const char* key, const char** out, std::uint64_t cap, std::uint64_t* n) {
    return get_list<std::string>(ctx, key, out, cap, n);
  };
  api_.config_is_set = [](void* ctx, const char* key) -> std::int32_t { return self(ctx).config.count(key) ? 1 : 0; };
  api_.clock_now = &fake_host_detail::clock_now;
  api_.emit_row = &fake_host_detail::emit_row;
  api_.add_metric = &fake_host_detail::add_metric;
  api_.add_field = [](void* ctx, const dgx_field* f) -> dgx_status {
    self(ctx).added_fields[f->key] = f->value != nullptr ? f->value : "";
    return DGX_OK;
  };
  api_.emit_note = [](void* ctx, dgx_note_placement, const char* title, const char* text) -> dgx_status {
    self(ctx).notes.push_back(std::string(title) + ": " + text);
    return DGX_OK;
  };
  api_.rank_info = &fake_host_detail::rank_info;
  api_.barrier = [](void*) -> dgx_status { return DGX_OK; };
  api_.broadcast = [](void*, void*, std::uint64_t, std::int32_t) -> dgx_status { return DGX_OK; };
  api_.all_reduce_f64 = [](void*, double*, std::uint64_t, dgx_reduce_op) -> dgx_status { return DGX_OK; };
  api_.progress = [](void*, double, const char*) {};
  api_.cancel_requested = [](void* ctx) -> std::int32_t { return self(ctx).cancel ? 1 : 0; };
  api_.find_data_file = [](void*, const char*, char*, std::uint64_t) -> dgx_status { return DGX_ERR_NOT_FOUND; };
  api_.host_comm = [](void*, const dgx_comm_api**) -> dgx_status { return DGX_ERR_UNSUPPORTED; };
  api_.write_output_file = &fake_host_detail::write_output_file;
  api_.config_dir = [](void* ctx, std::uint32_t index, const char** path, const char** origin) -> dgx_status {
    const auto& dirs = self(ctx).config_dirs;
    if (index >= dirs.size()) {
      return DGX_ERR_NOT_FOUND;
    }
    *path = dirs[index].first.c_str();
    *origin = dirs[index].second.c_str();
    return DGX_OK;
  };
}

/// What a workload's lifecycle ended with: DGX_OK, or the first failing call, its status and message.
struct Outcome {
  dgx_status status = DGX_OK;
  std::string call;     // "create", "run", "end_case", ...
  std::string message;  // the workload's message

  [[nodiscard]] bool ok() const { return status == DGX_OK; }
};

namespace detail {

// Calls one function of the workload with a fresh error buffer; records the first failure in `outcome`.
template <typename Call> bool step(Outcome& outcome, const char* name, Call&& call) {
  std::array<char, 2048> message{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
  const dgx_status status = call(&error);
  if (status == DGX_OK) {
    return true;
  }
  outcome = {status, name, message.data()};
  return false;
}

// The instance of one workload for the span of a lifecycle.
class Instance {
public:
  Instance(const dgx_workload_desc& w, const dgx_host_api* host, Outcome& outcome) : w_(w) {
    step(outcome, "create", [&](dgx_error* e) { return w_.create(&w_, host, &instance_, e); });
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance() {
    if (instance_ != nullptr) {
      w_.destroy(instance_);
    }
  }
  [[nodiscard]] dgx_instance* get() const { return instance_; }

private:
  const dgx_workload_desc& w_;
  dgx_instance* instance_ = nullptr;
};

// One case of measure mode: begin_case, `samples` timed calls of run(), end_case with their statistics.
inline bool measure_case(const dgx_workload_desc& w, dgx_instance* in, std::uint32_t index, std::uint32_t iterations,
                         std::uint32_t samples, Outcome& outcome) {
  dgx_case_desc desc{};
  desc.struct_size = sizeof desc;
  if (w.begin_case != nullptr &&
      !step(outcome, "begin_case", [&](dgx_error* e) { return w.begin_case(in, index, &desc, e); })) {
    return false;
  }
  double total = 0;
  for (std::uint32_t s = 0; s < samples; ++s) {
    const dgx_sample_request request{sizeof(dgx_sample_request), index, s, iterations, 0, 0};
    dgx_sample_result result{sizeof(dgx_sample_result), DGX_TIMING_HOST_WALL, -1.0, 0};
    const auto start = std::chrono::steady_clock::now();
    if (!step(outcome, "run", [&](dgx_error* e) { return w.run(in, &request, &result, e); })) {
      return false;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total += (result.timing == DGX_TIMING_HOST_WALL ? wall : result.seconds) / iterations;
  }
  const double mean = total / samples;  // a rough stand-in for the host's statistics
  const dgx_sample_stats stats{sizeof(dgx_sample_stats), samples, mean, mean, mean, mean, 0.0, 0.0};
  return w.end_case == nullptr ||
         step(outcome, "end_case", [&](dgx_error* e) { return w.end_case(in, index, &stats, e); });
}

}  // namespace detail

/// Measure mode as dgxhost runs it, shortened: create, setup, for each case begin_case, `samples` calls of run()
/// with `iterations` iterations each, end_case; finalize; destroy.
inline Outcome measure(const dgx_workload_desc& w, const dgx_host_api* host, std::uint32_t iterations = 1,
                       std::uint32_t samples = 3) {
  Outcome outcome;
  detail::Instance instance(w, host, outcome);
  dgx_instance* in = instance.get();
  if (in == nullptr) {
    return outcome;
  }
  if (w.setup != nullptr && !detail::step(outcome, "setup", [&](dgx_error* e) { return w.setup(in, e); })) {
    return outcome;
  }
  std::uint32_t cases = 1;
  if (w.case_count != nullptr &&
      !detail::step(outcome, "case_count", [&](dgx_error* e) { return w.case_count(in, &cases, e); })) {
    return outcome;
  }
  for (std::uint32_t c = 0; c < cases; ++c) {
    if (!detail::measure_case(w, in, c, iterations, samples, outcome)) {
      return outcome;
    }
  }
  if (w.finalize != nullptr) {
    detail::step(outcome, "finalize", [&](dgx_error* e) { return w.finalize(in, e); });
  }
  return outcome;
}

/// Project or explore mode as dgxhost runs it: create, project(mode), destroy.
inline Outcome project(const dgx_workload_desc& w, const dgx_host_api* host, dgx_mode mode = DGX_MODE_PROJECT) {
  Outcome outcome;
  detail::Instance instance(w, host, outcome);
  if (instance.get() != nullptr) {
    detail::step(outcome, "project", [&](dgx_error* e) { return w.project(instance.get(), mode, e); });
  }
  return outcome;
}

}  // namespace dgx::sdk::testing
