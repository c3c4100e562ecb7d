#include "dgx/core/plugin/host_services.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>

#include <dgx/sdk/units.hpp>

#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

HostServices::HostServices(const Logger& logger, HostComm& comm, std::vector<SearchPath> config_paths,
                           std::string source)
    : logger_(logger), comm_(comm), config_paths_(std::move(config_paths)), source_(std::move(source)) {
  api_.struct_size = sizeof api_;
  api_.abi_version = DGX_ABI_VERSION;
  api_.ctx = this;
  api_.host_version = build_info::version();
  api_.log = &HostServices::log;
  api_.config_get_bool = &HostServices::get_bool;
  api_.config_get_int = &HostServices::get_int;
  api_.config_get_float = &HostServices::get_float;
  api_.config_get_string = &HostServices::get_string;
  api_.config_get_int_list = &HostServices::get_int_list;
  api_.config_get_float_list = &HostServices::get_float_list;
  api_.config_get_string_list = &HostServices::get_string_list;
  api_.config_is_set = &HostServices::is_set;
  api_.clock_now = &HostServices::clock_now;
  api_.emit_row = &HostServices::emit_row;
  api_.add_metric = &HostServices::add_metric;
  api_.add_field = &HostServices::add_field;
  api_.emit_note = &HostServices::emit_note;
  api_.rank_info = &HostServices::rank_info;
  api_.barrier = &HostServices::barrier;
  api_.broadcast = &HostServices::broadcast;
  api_.all_reduce_f64 = &HostServices::all_reduce;
  api_.progress = &HostServices::progress;
  api_.cancel_requested = &HostServices::cancel_requested;
  api_.find_data_file = &HostServices::find_data_file;
  api_.host_comm = &HostServices::host_comm;
  api_.config_dir = &HostServices::config_dir;
  api_.write_output_file = &HostServices::write_output_file;
  for (const SearchPath& p : config_paths_) {
    config_path_texts_.push_back(p.path.string());
  }
}

void HostServices::bind_report(Report* report, std::string workload, std::string plugin, json::Object row_config) {
  report_ = report;
  workload_ = std::move(workload);
  plugin_ = std::move(plugin);
  row_config_ = std::move(row_config);
}

const ResolvedEntry* HostServices::entry(const char* key) const {
  if (config_ == nullptr || key == nullptr) {
    return nullptr;
  }
  const ResolvedEntry* e = config_->find(key);
  return e != nullptr && !e->value.is_null() ? e : nullptr;
}

// Config -----------------------------------------------------------------------------------------------------

namespace {

// Copies up to `capacity` list elements converted by `convert`; *count gets the full length.
template <typename T, typename Convert>
dgx_status copy_list(const json::Value& value, T* out, std::uint64_t capacity, std::uint64_t* count, Convert convert) {
  if (!value.is_array()) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  const json::Array& list = value.as_array();
  for (const json::Value& element : list) {
    if (!convert.accepts(element)) {
      return DGX_ERR_INVALID_ARGUMENT;
    }
  }
  if (count != nullptr) {
    *count = list.size();
  }
  for (std::uint64_t i = 0; i < capacity && i < list.size() && out != nullptr; ++i) {
    out[i] = convert(list[i]);
  }
  return DGX_OK;
}

struct AsInt {
  bool accepts(const json::Value& v) const { return v.is_int(); }
  std::int64_t operator()(const json::Value& v) const { return v.as_int(); }
};
struct AsFloat {
  bool accepts(const json::Value& v) const { return v.is_number(); }
  double operator()(const json::Value& v) const { return v.as_number(); }
};
struct AsString {
  bool accepts(const json::Value& v) const { return v.is_string(); }
  const char* operator()(const json::Value& v) const { return v.as_string().c_str(); }
};

}  // namespace

dgx_status HostServices::get_bool(void* ctx, const char* key, std::int32_t* out) {
  const ResolvedEntry* e = self(ctx).entry(key);
  if (e == nullptr) {
    return DGX_ERR_NOT_FOUND;
  }
  if (!e->value.is_bool()) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *out = e->value.as_bool() ? 1 : 0;
  return DGX_OK;
}

dgx_status HostServices::get_int(void* ctx, const char* key, std::int64_t* out) {
  const ResolvedEntry* e = self(ctx).entry(key);
  if (e == nullptr) {
    return DGX_ERR_NOT_FOUND;
  }
  if (!e->value.is_int()) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *out = e->value.as_int();
  return DGX_OK;
}

dgx_status HostServices::get_float(void* ctx, const char* key, double* out) {
  const ResolvedEntry* e = self(ctx).entry(key);
  if (e == nullptr) {
    return DGX_ERR_NOT_FOUND;
  }
  if (!e->value.is_number()) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *out = e->value.as_number();
  return DGX_OK;
}

dgx_status HostServices::get_string(void* ctx, const char* key, const char** out) {
  const ResolvedEntry* e = self(ctx).entry(key);
  if (e == nullptr) {
    return DGX_ERR_NOT_FOUND;
  }
  if (!e->value.is_string()) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *out = e->value.as_string().c_str();  // the resolved config outlives the instance
  return DGX_OK;
}

dgx_status HostServices::get_int_list(void* ctx, const char* key, std::int64_t* out, std::uint64_t capacity,
                                      std::uint64_t* count) {
  const ResolvedEntry* e = self(ctx).entry(key);
  return e == nullptr ? DGX_ERR_NOT_FOUND : copy_list(e->value, out, capacity, count, AsInt{});
}

dgx_status HostServices::get_float_list(void* ctx, const char* key, double* out, std::uint64_t capacity,
                                        std::uint64_t* count) {
  const ResolvedEntry* e = self(ctx).entry(key);
  return e == nullptr ? DGX_ERR_NOT_FOUND : copy_list(e->value, out, capacity, count, AsFloat{});
}

dgx_status HostServices::get_string_list(void* ctx, const char* key, const char** out, std::uint64_t capacity,
                                         std::uint64_t* count) {
  const ResolvedEntry* e = self(ctx).entry(key);
  return e == nullptr ? DGX_ERR_NOT_FOUND : copy_list(e->value, out, capacity, count, AsString{});
}

std::int32_t HostServices::is_set(void* ctx, const char* key) {
  const HostServices& s = self(ctx);
  if (s.config_ == nullptr || key == nullptr) {
    return 0;
  }
  const ResolvedEntry* e = s.config_->find(key);
  return e != nullptr && e->is_set ? 1 : 0;
}

// Logging, time ----------------------------------------------------------------------------------------------

void HostServices::log(void* ctx, dgx_log_level level, const char* message) {
  const HostServices& s = self(ctx);
  s.logger_.log(level, s.source_, printable(message, true));
}

double HostServices::clock_now(void*) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Results ----------------------------------------------------------------------------------------------------

namespace {

// Every string a plugin hands over ends up on a terminal or in a file: made printable at this boundary.
std::string str(const char* s) { return printable(s); }

// More samples than a row could summarise is garbage, not a run: reading them would walk off into memory.
constexpr std::uint64_t kMaxRowSamples = std::uint64_t{1} << 24;

bool valid_metric(const dgx_metric* m) { return m != nullptr && m->struct_size >= sizeof(dgx_metric) && m->name; }
Metric to_metric(const dgx_metric& m) {
  return {str(m.name), m.value, str(m.unit), (m.flags & DGX_METRIC_HIDDEN) != 0, str(m.label)};
}
bool valid_field(const dgx_field* f) { return f != nullptr && f->struct_size >= sizeof(dgx_field) && f->key; }

}  // namespace

dgx_status HostServices::check_metric(const dgx_metric* metric) {
  if (!valid_metric(metric)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  const std::string unit = str(metric->unit);
  if (sdk::is_known_unit(unit)) {
    return DGX_OK;
  }
  const std::string who = plugin_ + (workload_.empty() ? "" : ":" + workload_);
  const std::string reason = who + ": metric '" + str(metric->name) + "' has unit '" + unit +
                             "', which dgxhost does not accept (expected one of " + sdk::known_units() +
                             "; see docs/results-schema.md, Units)";
  logger_.log(DGX_LOG_ERROR, source_, reason);
  if (!refusal_) {
    refusal_ = Failure{ExitCode::run_failed, reason};
  }
  return DGX_ERR_INVALID_ARGUMENT;
}

dgx_status HostServices::read_row_config(const dgx_result_row& row, ResultRow& out) const {
  for (std::uint32_t i = 0; i < row.config_count; ++i) {
    const dgx_config_entry& e = detail::strided_element(row.config, i);
    if (e.struct_size < sizeof(dgx_config_entry) || e.key == nullptr || e.value == nullptr) {
      return DGX_ERR_INVALID_ARGUMENT;
    }
    auto value = parse_toml_value(e.value);
    if (!value) {
      logger_.log(DGX_LOG_ERROR, source_,
                  "emit_row: config entry '" + std::string(e.key) + "': " + value.error().message);
      return DGX_ERR_INVALID_ARGUMENT;
    }
    out.config.set(str(e.key), std::move(value.value()));
    if ((e.flags & DGX_CONFIG_HIDDEN) != 0) {
      out.hidden_config.push_back(str(e.key));
    }
  }
  for (const auto& [key, value] : row_config_) {  // the rest of the run's configuration, after the row's own
    if (!out.config.contains(key)) {
      out.config.set(key, value);
    }
  }
  return DGX_OK;
}

dgx_status HostServices::emit_row(void* ctx, const dgx_result_row* row) {
  HostServices& s = self(ctx);
  if (s.report_ == nullptr) {
    s.logger_.log(DGX_LOG_ERROR, s.source_, "emit_row called outside a run (e.g. from init or probe)");
    return DGX_ERR_UNSUPPORTED;
  }
  // ABI 1.0 and 1.1 rows end before sample_times.
  constexpr std::size_t kRowV1_1 = offsetof(dgx_result_row, sample_times);
  const bool has_samples =
      row != nullptr && row->struct_size >= offsetof(dgx_result_row, sample_count) + sizeof row->sample_count;
  if (row == nullptr || row->struct_size < kRowV1_1 || row->mode < DGX_RESULT_MEASURED ||
      row->mode > DGX_RESULT_REFERENCE || !detail::readable_array(row->config, row->config_count) ||
      !detail::readable_array(row->metrics, row->metric_count) ||
      !detail::readable_array(row->fields, row->field_count) ||
      (has_samples &&
       (row->sample_count > kMaxRowSamples || (row->sample_count > 0 && row->sample_times == nullptr)))) {
    s.logger_.log(DGX_LOG_ERROR, s.source_,
                  "emit_row: malformed row (struct_size, mode, or an array that is NULL or has a bad stride)");
    return DGX_ERR_INVALID_ARGUMENT;
  }
  ResultRow out;
  out.workload = row->workload != nullptr ? str(row->workload) : s.workload_;
  out.plugin = s.plugin_;
  out.mode = row->mode == DGX_RESULT_MEASURED    ? ResultMode::measured
             : row->mode == DGX_RESULT_PROJECTED ? ResultMode::projected
                                                 : ResultMode::reference;
  out.table = row->table != nullptr ? str(row->table) : out.workload;
  if (const dgx_status status = s.read_row_config(*row, out); status != DGX_OK) {
    return status;
  }
  for (std::uint32_t i = 0; i < row->metric_count; ++i) {
    const dgx_metric& m = detail::strided_element(row->metrics, i);
    if (const dgx_status status = s.check_metric(&m); status != DGX_OK) {
      return status;
    }
    out.add_metric(to_metric(m));
  }
  for (std::uint32_t i = 0; i < row->field_count; ++i) {
    const dgx_field& f = detail::strided_element(row->fields, i);
    if (!valid_field(&f)) {
      return DGX_ERR_INVALID_ARGUMENT;
    }
    out.add_field({str(f.key), str(f.value), (f.flags & DGX_FIELD_HIDDEN) != 0});
  }
  if (has_samples && row->mode == DGX_RESULT_MEASURED) {
    out.sample_times.assign(row->sample_times, row->sample_times + row->sample_count);
  }
  s.report_->rows.push_back(std::move(out));
  return DGX_OK;
}

dgx_status HostServices::add_metric(void* ctx, const dgx_metric* metric) {
  HostServices& s = self(ctx);
  if (s.current_row_ == nullptr) {
    return DGX_ERR_UNSUPPORTED;
  }
  if (const dgx_status status = s.check_metric(metric); status != DGX_OK) {
    return status;
  }
  s.current_row_->add_metric(to_metric(*metric));
  return DGX_OK;
}

dgx_status HostServices::add_field(void* ctx, const dgx_field* field) {
  HostServices& s = self(ctx);
  if (s.current_row_ == nullptr) {
    return DGX_ERR_UNSUPPORTED;
  }
  if (!valid_field(field)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  s.current_row_->add_field({str(field->key), str(field->value), (field->flags & DGX_FIELD_HIDDEN) != 0});
  return DGX_OK;
}

dgx_status HostServices::emit_note(void* ctx, dgx_note_placement placement, const char* title, const char* text) {
  HostServices& s = self(ctx);
  if (s.report_ == nullptr) {
    return DGX_ERR_UNSUPPORTED;
  }
  s.report_->notes.push_back({placement == DGX_NOTE_BEFORE, str(title), printable(text, true)});
  return DGX_OK;
}

// Ranks ------------------------------------------------------------------------------------------------------

dgx_status HostServices::rank_info(void* ctx, dgx_rank_info* out) {
  if (out == nullptr || out->struct_size < sizeof(dgx_rank_info)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  const RankInfo& r = self(ctx).comm_.ranks();
  out->rank = r.rank;
  out->world_size = r.world_size;
  out->local_rank = r.local_rank;
  out->local_size = r.local_size;
  out->launcher = r.launcher.c_str();
  return DGX_OK;
}

// Collective failures surface as exceptions from the communicator; the boundary turns them into a status.
template <typename Body> dgx_status guarded_comm(HostServices& s, const char* what, Body&& body) {
  try {
    body();
    return DGX_OK;
  } catch (const std::exception& e) {
    s.logger().log(DGX_LOG_ERROR, s.source(), std::string(what) + " failed: " + e.what());
    return DGX_ERR_RUNTIME;
  }
}

dgx_status HostServices::barrier(void* ctx) {
  return guarded_comm(self(ctx), "barrier", [&] { self(ctx).comm_.barrier(); });
}

dgx_status HostServices::broadcast(void* ctx, void* data, std::uint64_t bytes, std::int32_t root) {
  HostServices& s = self(ctx);
  if (root < 0 || root >= s.comm_.ranks().world_size || (data == nullptr && bytes > 0)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  return guarded_comm(s, "broadcast", [&] { s.comm_.broadcast(data, bytes, root); });
}

dgx_status HostServices::all_reduce(void* ctx, double* values, std::uint64_t count, dgx_reduce_op op) {
  HostServices& s = self(ctx);
  if ((values == nullptr && count > 0) || op < DGX_REDUCE_SUM || op > DGX_REDUCE_MAX) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  return guarded_comm(s, "all_reduce", [&] { s.comm_.all_reduce(values, count, op); });
}

// Progress, cancellation, data -----------------------------------------------------------------------------------

void HostServices::progress(void* ctx, double fraction, const char* what) {
  const HostServices& s = self(ctx);
  s.logger_.progress(s.source_, fraction, what != nullptr ? what : "");
}

// Ctrl-C, or the runner's limit on the sample in flight (runner.max_time).
std::int32_t HostServices::cancel_requested(void*) { return dgx::cancel_requested() || call_deadline_passed() ? 1 : 0; }

dgx_status HostServices::find_data_file(void* ctx, const char* relative_path, char* out, std::uint64_t capacity) {
  if (relative_path == nullptr || out == nullptr || capacity == 0) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  const std::filesystem::path found = find_in(self(ctx).config_paths_, relative_path);
  if (found.empty()) {
    return DGX_ERR_NOT_FOUND;
  }
  const std::string path = found.string();
  if (path.size() + 1 > capacity) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  std::memcpy(out, path.c_str(), path.size() + 1);
  return DGX_OK;
}

dgx_status HostServices::config_dir(void* ctx, std::uint32_t index, const char** path, const char** origin) {
  const HostServices& s = self(ctx);
  if (path == nullptr || origin == nullptr) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  if (index >= s.config_paths_.size()) {
    return DGX_ERR_NOT_FOUND;
  }
  *path = s.config_path_texts_[index].c_str();
  *origin = s.config_paths_[index].origin.c_str();
  return DGX_OK;
}

}  // namespace dgx

namespace dgx {

namespace {

dgx_status refuse(dgx_error* error, dgx_status status, const std::string& message) {
  if (error != nullptr && error->struct_size >= sizeof(dgx_error) && error->message != nullptr && error->capacity > 0) {
    const std::size_t n = std::min<std::size_t>(message.size(), error->capacity - 1);
    std::memcpy(error->message, message.data(), n);
    error->message[n] = '\0';
  }
  return status;
}

}  // namespace

// The files a user asked the workload for (--emit DIR): written by the host, safely, into that folder only.
dgx_status HostServices::write_output_file(void* ctx, const char* name, const char* data, std::uint64_t size,
                                           std::uint32_t mode, dgx_error* error) {
  HostServices& s = self(ctx);
  if (s.output_folder_.empty()) {
    return refuse(error, DGX_ERR_UNSUPPORTED,
                  "no folder for the workload's files: dgxhost --emit DIR names one (rank 0 writes them)");
  }
  if (name == nullptr) {
    return DGX_OK;  // the question whether a folder was named
  }
  const std::string shown = printable(name);
  if ((data == nullptr && size > 0) || (mode & ~0777u) != 0) {
    return refuse(error, DGX_ERR_INVALID_ARGUMENT,
                  "write_output_file " + shown + ": " +
                      (data == nullptr ? "no data for " + std::to_string(size) + " bytes"
                                       : "mode " + std::to_string(mode) + " has bits beyond 0777"));
  }
  if (const std::string problem = text::file_name_problem(name); !problem.empty()) {
    return refuse(error, DGX_ERR_INVALID_ARGUMENT, "write_output_file: " + printable(problem));
  }
  if (auto failed =
          write_file_in_folder(s.output_folder_, name, std::string_view(data != nullptr ? data : "", size), mode)) {
    s.logger_.log(DGX_LOG_ERROR, s.source_, "--emit: " + *failed);
    return refuse(error, DGX_ERR_RUNTIME, "--emit " + s.output_folder_ + ": " + *failed);
  }
  s.logger_.log(DGX_LOG_INFO, s.source_, "wrote " + s.output_folder_ + "/" + shown);
  return DGX_OK;
}

dgx_status HostServices::host_comm(void* ctx, const dgx_comm_api** out) {
  if (out == nullptr) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *out = self(ctx).comm_.api();
  return DGX_OK;
}

}  // namespace dgx
