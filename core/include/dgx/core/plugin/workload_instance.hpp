// RAII ownership of one plugin workload instance, and checked calls into it: every call runs inside a CallGuard
// (call_guard.hpp) and gets a host-owned error buffer, and a failing status becomes a Failure naming the plugin,
// the workload and the function.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <dgx/plugin.h>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// The exit code a plugin status maps to (invalid argument -> usage, no device -> no_device, ...).
ExitCode exit_code_for(dgx_status status);

/// Success, or why a plugin call failed.
using CallResult = std::optional<Failure>;

/// Asks the workload whether measure mode can run here (workload can_measure); nullopt when it can.
CallResult can_measure(const WorkloadInfo& workload, const dgx_host_api* host);

class WorkloadInstance {
public:
  static Expected<WorkloadInstance> create(const WorkloadInfo& workload, const dgx_host_api* host);

  WorkloadInstance(WorkloadInstance&& other) noexcept;
  WorkloadInstance& operator=(WorkloadInstance&&) = delete;
  WorkloadInstance(const WorkloadInstance&) = delete;
  ~WorkloadInstance();

  [[nodiscard]] const WorkloadInfo& workload() const { return *workload_; }

  CallResult setup();
  Expected<std::uint32_t> case_count();
  CallResult begin_case(std::uint32_t index, dgx_case_desc& out);
  /// One sample; `seconds` gets the steady clock's time around the plugin's run() alone.
  CallResult run(const dgx_sample_request& request, dgx_sample_result& result, double& seconds);
  CallResult end_case(std::uint32_t index, const dgx_sample_stats& stats);
  CallResult finalize();
  CallResult project(dgx_mode mode);
  /// Describes the current case in crash reports ("size=1K"), from its row once begin_case has returned.
  void set_case_label(std::string label) { case_label_ = std::move(label); }

private:
  WorkloadInstance(const WorkloadInfo& workload, dgx_instance* instance) : workload_(&workload), instance_(instance) {}
  dgx_error* fresh_error();
  [[nodiscard]] Failure failure(const char* function, dgx_status status) const;
  [[nodiscard]] std::string where(const char* function) const;  // "plugin:workload: run() of case 2/5 (size=1K)"

  const WorkloadInfo* workload_;
  dgx_instance* instance_;
  std::array<char, 2048> message_{};
  dgx_error error_{};
  std::optional<std::uint32_t> case_index_;
  std::uint32_t case_total_ = 0;
  std::string case_label_;
};

}  // namespace dgx
