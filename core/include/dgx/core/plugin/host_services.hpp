// The host services table (dgx_host_api) handed to plugins, backed by the host's logger, communicator,
// resolved configuration and report. One HostServices per plugin (for init/probe: no config, no results) or per
// workload instance.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <dgx/plugin.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/log.hpp"

namespace dgx {

class HostServices {
public:
  HostServices(const Logger& logger, HostComm& comm, std::vector<SearchPath> config_paths, std::string source);
  HostServices(const HostServices&) = delete;
  HostServices& operator=(const HostServices&) = delete;

  /// Makes the configuration visible to the plugin (must outlive this object).
  void bind_config(const ResolvedConfig* config) { config_ = config; }
  /// Rows and notes the plugin emits go to `report`, attributed to this workload and plugin. Every emitted row
  /// carries `row_config` (the workload's configuration) after the entries the row sets itself, so that a
  /// projected row says what it describes without the plugin copying each key into it.
  void bind_report(Report* report, std::string workload, std::string plugin, json::Object row_config = {});
  /// The measured row that add_metric/add_field extend; nullptr outside a measured case.
  void set_current_row(ResultRow* row) { current_row_ = row; }
  /// The folder the user named for the workload's files (--emit DIR), where write_output_file writes; empty: none
  /// (the call answers DGX_ERR_UNSUPPORTED), as on every rank but 0.
  void set_output_folder(std::string folder) { output_folder_ = std::move(folder); }

  /// Why the plugin's results were refused (a metric in a unit outside <dgx/sdk/units.hpp>), once; the run fails
  /// with it however the plugin handled the failed call.
  [[nodiscard]] std::optional<Failure> take_refusal() { return std::exchange(refusal_, std::nullopt); }

  [[nodiscard]] const dgx_host_api* api() const { return &api_; }
  [[nodiscard]] const Logger& logger() const { return logger_; }
  [[nodiscard]] const std::string& source() const { return source_; }

private:
  static HostServices& self(void* ctx) { return *static_cast<HostServices*>(ctx); }
  const ResolvedEntry* entry(const char* key) const;
  /// Checks a metric at the boundary; DGX_OK, or DGX_ERR_INVALID_ARGUMENT with the refusal recorded.
  dgx_status check_metric(const dgx_metric* metric);
  /// The row's own config entries, then the run's configuration (row_config_) for keys the row does not set.
  dgx_status read_row_config(const dgx_result_row& row, ResultRow& out) const;

  static void log(void* ctx, dgx_log_level level, const char* message);
  static dgx_status get_bool(void* ctx, const char* key, std::int32_t* out);
  static dgx_status get_int(void* ctx, const char* key, std::int64_t* out);
  static dgx_status get_float(void* ctx, const char* key, double* out);
  static dgx_status get_string(void* ctx, const char* key, const char** out);
  static dgx_status get_int_list(void* ctx, const char* key, std::int64_t* out, std::uint64_t capacity,
                                 std::uint64_t* count);
  static dgx_status get_float_list(void* ctx, const char* key, double* out, std::uint64_t capacity,
                                   std::uint64_t* count);
  static dgx_status get_string_list(void* ctx, const char* key, const char** out, std::uint64_t capacity,
                                    std::uint64_t* count);
  static std::int32_t is_set(void* ctx, const char* key);
  static double clock_now(void* ctx);
  static dgx_status emit_row(void* ctx, const dgx_result_row* row);
  static dgx_status add_metric(void* ctx, const dgx_metric* metric);
  static dgx_status add_field(void* ctx, const dgx_field* field);
  static dgx_status emit_note(void* ctx, dgx_note_placement placement, const char* title, const char* text);
  static dgx_status rank_info(void* ctx, dgx_rank_info* out);
  static dgx_status barrier(void* ctx);
  static dgx_status broadcast(void* ctx, void* data, std::uint64_t bytes, std::int32_t root);
  static dgx_status all_reduce(void* ctx, double* values, std::uint64_t count, dgx_reduce_op op);
  static void progress(void* ctx, double fraction, const char* what);
  static std::int32_t cancel_requested(void* ctx);
  static dgx_status find_data_file(void* ctx, const char* relative_path, char* out, std::uint64_t capacity);
  static dgx_status config_dir(void* ctx, std::uint32_t index, const char** path, const char** origin);
  static dgx_status host_comm(void* ctx, const dgx_comm_api** out);
  static dgx_status write_output_file(void* ctx, const char* name, const char* data, std::uint64_t size,
                                      std::uint32_t mode, dgx_error* error);

  const Logger& logger_;
  HostComm& comm_;
  std::vector<SearchPath> config_paths_;
  std::vector<std::string> config_path_texts_;  // config_paths_ as the strings config_dir hands out
  std::string source_;
  const ResolvedConfig* config_ = nullptr;
  Report* report_ = nullptr;
  std::string workload_;
  std::string plugin_;
  json::Object row_config_;
  ResultRow* current_row_ = nullptr;
  std::string output_folder_;
  std::optional<Failure> refusal_;
  dgx_host_api api_{};
};

}  // namespace dgx
