// The host's services as seen from C++ plugin code: configuration, logging, results, ranks, cancellation.
// A thin, non-owning wrapper around dgx_host_api; failures become dgx::sdk exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dgx/plugin.h>
#include <dgx/sdk/comm.hpp>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/rank_info.hpp>
#include <dgx/sdk/toml_literal.hpp>
#include <dgx/sdk/units.hpp>

namespace dgx::sdk {

enum class ResultMode : dgx_result_mode {
  measured = DGX_RESULT_MEASURED,
  projected = DGX_RESULT_PROJECTED,
  reference = DGX_RESULT_REFERENCE
};

enum class Mode : dgx_mode { measure = DGX_MODE_MEASURE, project = DGX_MODE_PROJECT, explore = DGX_MODE_EXPLORE };

/// A result row under construction. Values are kept as strings until Host::emit copies them out.
class Row {
public:
  explicit Row(ResultMode mode) : mode_(mode) {}

  Row& workload(std::string name) {
    workload_ = std::move(name);
    return *this;
  }
  Row& table(std::string title) {
    table_ = std::move(title);
    return *this;
  }

  /// A config entry; `value` is any type toml_literal() accepts. DGX_CONFIG_HIDDEN keeps it out of the
  /// terminal table (it stays in JSON and CSV).
  template <typename T> Row& config(std::string key, const T& value, std::uint32_t flags = 0) {
    config_.push_back({std::move(key), toml_literal(value), flags});
    return *this;
  }
  /// A config entry whose value is already a TOML value literal ("8", "\"bf16\"", "[1, 2]"): a value read from
  /// somewhere typed, such as an imported log's configuration.
  Row& config_literal(std::string key, std::string literal, std::uint32_t flags = 0) {
    config_.push_back({std::move(key), std::move(literal), flags});
    return *this;
  }
  /// `unit` is one of <dgx/sdk/units.hpp> ("s", "GB/s", "TFLOP/s", "%", ...): the host refuses others.
  /// `label` is an optional short column title for the terminal table (JSON always uses `name`).
  Row& metric(std::string name, double value, std::string unit, std::uint32_t flags = 0, std::string label = {}) {
    metrics_.push_back({std::move(name), value, std::move(unit), flags, std::move(label)});
    return *this;
  }
  Row& field(std::string key, std::string value, std::uint32_t flags = 0) {
    fields_.push_back({std::move(key), std::move(value), flags});
    return *this;
  }
  /// A measured row's per-iteration times in seconds, in order (an imported log's steady-state steps): compare and
  /// history test differences on them. Hosts of ABI 1.1 and older ignore them.
  Row& samples(std::vector<double> seconds) {
    samples_ = std::move(seconds);
    return *this;
  }

private:
  friend class Host;
  struct Entry {
    std::string key;
    std::string value;
    std::uint32_t flags;
  };
  struct Metric {
    std::string name;
    double value;
    std::string unit;
    std::uint32_t flags;
    std::string label;
  };
  struct Field {
    std::string key;
    std::string value;
    std::uint32_t flags;
  };

  ResultMode mode_;
  std::string workload_;
  std::string table_;
  std::vector<Entry> config_;
  std::vector<Metric> metrics_;
  std::vector<Field> fields_;
  std::vector<double> samples_;
};

enum class NotePlacement : dgx_note_placement { before = DGX_NOTE_BEFORE, after = DGX_NOTE_AFTER };

class Host {
public:
  explicit Host(const dgx_host_api* api) : api_(api) {}

  [[nodiscard]] const dgx_host_api* api() const noexcept { return api_; }

  // Logging -------------------------------------------------------------------------------------------------
  void log(dgx_log_level level, const std::string& message) const { api_->log(api_->ctx, level, message.c_str()); }
  void debug(const std::string& message) const { log(DGX_LOG_DEBUG, message); }
  void info(const std::string& message) const { log(DGX_LOG_INFO, message); }
  void warn(const std::string& message) const { log(DGX_LOG_WARNING, message); }

  // Configuration -------------------------------------------------------------------------------------------
  [[nodiscard]] bool get_bool(const std::string& key) const {
    std::int32_t value = 0;
    check_config(api_->config_get_bool(api_->ctx, key.c_str(), &value), key, "a boolean");
    return value != 0;
  }
  [[nodiscard]] std::int64_t get_int(const std::string& key) const {
    std::int64_t value = 0;
    check_config(api_->config_get_int(api_->ctx, key.c_str(), &value), key, "an integer");
    return value;
  }
  [[nodiscard]] double get_float(const std::string& key) const {
    double value = 0;
    check_config(api_->config_get_float(api_->ctx, key.c_str(), &value), key, "a number");
    return value;
  }
  [[nodiscard]] std::string get_string(const std::string& key) const {
    const char* value = nullptr;
    check_config(api_->config_get_string(api_->ctx, key.c_str(), &value), key, "a string");
    return value != nullptr ? value : "";
  }
  [[nodiscard]] std::vector<std::int64_t> get_int_list(const std::string& key) const {
    return get_list<std::int64_t>(api_->config_get_int_list, key, "a list of integers");
  }
  [[nodiscard]] std::vector<double> get_float_list(const std::string& key) const {
    return get_list<double>(api_->config_get_float_list, key, "a list of numbers");
  }
  [[nodiscard]] std::vector<std::string> get_string_list(const std::string& key) const {
    const auto raw = get_list<const char*>(api_->config_get_string_list, key, "a list of strings");
    return {raw.begin(), raw.end()};
  }
  /// True when a preset, config file or --set gave `key` a value (not just its default).
  [[nodiscard]] bool is_set(const std::string& key) const { return api_->config_is_set(api_->ctx, key.c_str()) != 0; }
  /// The value of an optional key without a default; nullopt when unset.
  [[nodiscard]] std::optional<double> find_float(const std::string& key) const {
    double value = 0;
    const dgx_status status = api_->config_get_float(api_->ctx, key.c_str(), &value);
    if (status == DGX_ERR_NOT_FOUND) {
      return std::nullopt;
    }
    check_config(status, key, "a number");
    return value;
  }

  // Time, results -------------------------------------------------------------------------------------------
  [[nodiscard]] double now() const { return api_->clock_now(api_->ctx); }

  void emit(const Row& row) const {
    std::vector<dgx_config_entry> config;
    config.reserve(row.config_.size());
    for (const auto& e : row.config_) {
      config.push_back({sizeof(dgx_config_entry), e.key.c_str(), e.value.c_str(), e.flags});
    }
    std::vector<dgx_metric> metrics;
    metrics.reserve(row.metrics_.size());
    for (const auto& m : row.metrics_) {
      metrics.push_back({sizeof(dgx_metric), m.name.c_str(), m.value, m.unit.c_str(), m.flags,
                         m.label.empty() ? nullptr : m.label.c_str()});
    }
    std::vector<dgx_field> fields;
    fields.reserve(row.fields_.size());
    for (const auto& f : row.fields_) {
      fields.push_back({sizeof(dgx_field), f.key.c_str(), f.value.c_str(), f.flags});
    }
    dgx_result_row c_row{};
    c_row.struct_size = sizeof c_row;
    c_row.workload = row.workload_.empty() ? nullptr : row.workload_.c_str();
    c_row.mode = static_cast<dgx_result_mode>(row.mode_);
    c_row.table = row.table_.empty() ? nullptr : row.table_.c_str();
    c_row.config = config.data();
    c_row.config_count = static_cast<std::uint32_t>(config.size());
    c_row.metrics = metrics.data();
    c_row.metric_count = static_cast<std::uint32_t>(metrics.size());
    c_row.fields = fields.data();
    c_row.field_count = static_cast<std::uint32_t>(fields.size());
    c_row.sample_times = row.samples_.empty() ? nullptr : row.samples_.data();
    c_row.sample_count = row.samples_.size();
    check(api_->emit_row(api_->ctx, &c_row), "emit_row");
  }

  /// Adds a metric to the measured row of the current case (call between begin_case and end_case). `unit` is one
  /// of <dgx/sdk/units.hpp>; another one throws, and the host fails the run naming the metric and the unit.
  void add_metric(const std::string& name, double value, const std::string& unit, std::uint32_t flags = 0,
                  const std::string& label = {}) const {
    const dgx_metric metric{sizeof(dgx_metric), name.c_str(), value,
                            unit.c_str(),       flags,        label.empty() ? nullptr : label.c_str()};
    check(api_->add_metric(api_->ctx, &metric), "add_metric");
  }
  void add_field(const std::string& key, const std::string& value, std::uint32_t flags = 0) const {
    const dgx_field field{sizeof(dgx_field), key.c_str(), value.c_str(), flags};
    check(api_->add_field(api_->ctx, &field), "add_field");
  }
  void note(NotePlacement placement, const std::string& title, const std::string& text) const {
    check(api_->emit_note(api_->ctx, static_cast<dgx_note_placement>(placement), title.c_str(), text.c_str()),
          "emit_note");
  }

  // Ranks ---------------------------------------------------------------------------------------------------
  [[nodiscard]] RankInfo ranks() const {
    dgx_rank_info info{};
    info.struct_size = sizeof info;
    check(api_->rank_info(api_->ctx, &info), "rank_info");
    return {info.rank, info.world_size, info.local_rank, info.local_size, info.launcher ? info.launcher : "none"};
  }
  void barrier() const { check(api_->barrier(api_->ctx), "barrier"); }
  void broadcast(void* data, std::uint64_t bytes, int root) const {
    check(api_->broadcast(api_->ctx, data, bytes, root), "broadcast");
  }
  void all_reduce(std::span<double> values, dgx_reduce_op op) const {
    check(api_->all_reduce_f64(api_->ctx, values.data(), values.size(), op), "all_reduce_f64");
  }

  /// The host's communicator over all ranks, on host buffers (MPI with several ranks; a world of one otherwise).
  [[nodiscard]] HostCommunicator host_comm() const {
    const dgx_comm_api* comm = nullptr;
    check(api_->host_comm(api_->ctx, &comm), "host_comm");
    return HostCommunicator(comm);
  }

  // Progress, cancellation, data files ----------------------------------------------------------------------
  void progress(double fraction, const std::string& what) const { api_->progress(api_->ctx, fraction, what.c_str()); }
  /// True once the user asked to stop (Ctrl-C) or the host's limit on the sample in flight (runner.max_time) has
  /// passed: a long run() should poll it and end with throw_if_cancelled(); the host does not count that sample.
  [[nodiscard]] bool cancelled() const { return api_->cancel_requested(api_->ctx) != 0; }
  /// Throws Cancelled when the host asks to stop (cancelled()).
  void throw_if_cancelled() const {
    if (cancelled()) {
      throw Cancelled("cancelled by the user");
    }
  }
  /// A folder the host searches for data files, and who named it ("--config-dir", "DGX_CONFIG_PATH", ...).
  struct ConfigDir {
    std::string path;
    std::string origin;
  };
  /// The folders the host searches for data files (catalog entries), highest priority first; empty on a host of
  /// ABI 1.0, which cannot say.
  [[nodiscard]] std::vector<ConfigDir> config_dirs() const {
    std::vector<ConfigDir> dirs;
    if (!provides(offsetof(dgx_host_api, config_dir), sizeof api_->config_dir) || api_->config_dir == nullptr) {
      return dirs;
    }
    for (std::uint32_t i = 0; i < 1024; ++i) {
      const char* path = nullptr;
      const char* origin = nullptr;
      if (api_->config_dir(api_->ctx, i, &path, &origin) != DGX_OK || path == nullptr) {
        break;
      }
      dirs.push_back({path, origin != nullptr ? origin : ""});
    }
    return dirs;
  }

  // Files for the user ------------------------------------------------------------------------------------------
  /// Whether the user named a folder for the files a workload writes (dgxhost --emit DIR): write_output_file then
  /// writes them. False on a host of ABI 1.0, which has no such folder.
  [[nodiscard]] bool output_files_requested() const {
    return has_write_output_file() && api_->write_output_file(api_->ctx, nullptr, nullptr, 0, 0, nullptr) == DGX_OK;
  }
  /// Writes `name` (a plain file name) with `text` into the folder the user named (--emit DIR); `mode` its
  /// permission bits. The host writes it safely (a fresh temporary renamed into place; never through a link, never
  /// outside the folder). Throws the host's error: Unsupported when the user named no folder or the host is of ABI
  /// 1.0, InvalidArgument for a name it refuses, RuntimeError when the write fails.
  void write_output_file(const std::string& name, std::string_view text, std::uint32_t mode = 0644) const {
    if (!has_write_output_file()) {
      throw Unsupported("cannot write " + name + ": this dgxhost (ABI " +
                        std::to_string(DGX_ABI_VERSION_MAJOR(api_->abi_version)) + "." +
                        std::to_string(DGX_ABI_VERSION_MINOR(api_->abi_version)) +
                        ") writes no files for workloads; a dgxhost of ABI 1.1 or later does (--emit DIR)");
    }
    std::string message(1024, '\0');
    dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
    const dgx_status status = api_->write_output_file(api_->ctx, name.c_str(), text.data(), text.size(), mode, &error);
    if (status == DGX_OK) {
      return;
    }
    message.resize(message.find('\0'));
    if (message.empty()) {
      message = "host service write_output_file failed for " + name + ": " + status_name(status);
    }
    switch (status) {  // the exception of the status, so the plugin (and the host's exit code) can tell them apart
    case DGX_ERR_UNSUPPORTED: throw Unsupported(message);
    case DGX_ERR_INVALID_ARGUMENT: throw InvalidArgument(message);
    case DGX_ERR_RUNTIME: throw RuntimeError(message);
    default: throw Error(status, message);
    }
  }

  [[nodiscard]] std::optional<std::string> find_data_file(const std::string& relative_path) const {
    std::string buffer(4096, '\0');
    const dgx_status status = api_->find_data_file(api_->ctx, relative_path.c_str(), buffer.data(), buffer.size());
    if (status != DGX_OK) {
      return std::nullopt;
    }
    buffer.resize(buffer.find('\0'));
    return buffer;
  }

private:
  /// Whether the host's table reaches a field at `offset` of `size` bytes (fields of a later minor version).
  [[nodiscard]] bool provides(std::size_t offset, std::size_t size) const {
    return api_ != nullptr && api_->struct_size >= offset + size;
  }
  [[nodiscard]] bool has_write_output_file() const {
    return provides(offsetof(dgx_host_api, write_output_file), sizeof api_->write_output_file) &&
           api_->write_output_file != nullptr;
  }
  static void check(dgx_status status, const char* what) {
    if (status != DGX_OK) {
      throw Error(status, std::string("host service ") + what + " failed: " + status_name(status));
    }
  }
  static void check_config(dgx_status status, const std::string& key, const char* expected) {
    if (status == DGX_OK) {
      return;
    }
    if (status == DGX_ERR_NOT_FOUND) {
      throw Error(status, "config key '" + key + "' has no value");
    }
    throw Error(status, "config key '" + key + "' is not " + expected);
  }
  template <typename T, typename Getter>
  std::vector<T> get_list(Getter getter, const std::string& key, const char* expected) const {
    std::uint64_t count = 0;
    check_config(getter(api_->ctx, key.c_str(), nullptr, 0, &count), key, expected);
    std::vector<T> values(count);
    check_config(getter(api_->ctx, key.c_str(), values.data(), values.size(), &count), key, expected);
    values.resize(count);
    return values;
  }

  const dgx_host_api* api_;
};

}  // namespace dgx::sdk
