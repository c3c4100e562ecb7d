#include "dgx/core/plugin/workload_instance.hpp"

#include <chrono>
#include <utility>

#include <dgx/sdk/error.hpp>

#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/support/printable.hpp"

namespace dgx {

ExitCode exit_code_for(dgx_status status) {
  switch (status) {
  case DGX_OK: return ExitCode::success;
  case DGX_ERR_INVALID_ARGUMENT:
  case DGX_ERR_UNSUPPORTED: return ExitCode::usage;
  case DGX_ERR_NO_DEVICE: return ExitCode::no_device;
  case DGX_ERR_CHECK_FAILED: return ExitCode::check_failed;
  case DGX_ERR_CANCELLED: return ExitCode::interrupted;
  default: return ExitCode::run_failed;
  }
}

namespace {

std::string who(const WorkloadInfo& w) { return w.plugin->name + ":" + w.name; }

Failure make_failure(const WorkloadInfo& w, const char* function, dgx_status status, const char* message) {
  std::string text = who(w) + ": " + function + " failed";
  if (status == DGX_ERR_INVALID_ARGUMENT) {
    text = who(w) + ": invalid configuration";
  }
  text +=
      std::string(": ") + (message != nullptr && *message != '\0' ? printable(message, true)
                                                                  : "no message (" + sdk::status_symbol(status) + ")");
  return {exit_code_for(status), std::move(text)};
}

}  // namespace

CallResult can_measure(const WorkloadInfo& workload, const dgx_host_api* host) {
  if (workload.desc->can_measure == nullptr) {
    return std::nullopt;
  }
  std::array<char, 2048> message{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
  dgx_status status = DGX_OK;
  {
    const CallGuard guard(who(workload) + ": can_measure()");
    status = workload.desc->can_measure(workload.desc, host, &error);
  }
  if (status == DGX_OK) {
    return std::nullopt;
  }
  Failure f = make_failure(workload, "can_measure", status, message.data());
  f.message = who(workload) +
              " cannot measure here: " + (message[0] != '\0' ? printable(message.data(), true) : "no reason given");
  return f;
}

Expected<WorkloadInstance> WorkloadInstance::create(const WorkloadInfo& workload, const dgx_host_api* host) {
  std::array<char, 2048> message{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
  dgx_instance* instance = nullptr;
  const CallGuard guard(who(workload) + ": create()");
  const dgx_status status = workload.desc->create(workload.desc, host, &instance, &error);
  if (status != DGX_OK) {
    return make_failure(workload, "create", status, message.data());
  }
  if (instance == nullptr) {
    return make_failure(workload, "create", DGX_ERR_INTERNAL, "returned DGX_OK but no instance");
  }
  return WorkloadInstance(workload, instance);
}

WorkloadInstance::WorkloadInstance(WorkloadInstance&& other) noexcept
    : workload_(other.workload_), instance_(std::exchange(other.instance_, nullptr)) {}

WorkloadInstance::~WorkloadInstance() {
  if (instance_ == nullptr) {
    return;
  }
  const CallGuard guard(where("destroy"));
  workload_->desc->destroy(instance_);
}

std::string WorkloadInstance::where(const char* function) const {
  std::string text = who(*workload_) + ": " + function + "()";
  if (case_index_) {
    text += " of case " + std::to_string(*case_index_ + 1);
    if (case_total_ != 0) {
      text += "/" + std::to_string(case_total_);
    }
    if (!case_label_.empty()) {
      text += " (" + case_label_ + ")";
    }
  }
  return text;
}

dgx_error* WorkloadInstance::fresh_error() {
  message_[0] = '\0';
  error_ = {sizeof(dgx_error), static_cast<std::uint32_t>(message_.size()), message_.data()};
  return &error_;
}

Failure WorkloadInstance::failure(const char* function, dgx_status status) const {
  return make_failure(*workload_, function, status, message_.data());
}

CallResult WorkloadInstance::setup() {
  if (workload_->desc->setup == nullptr) {
    return std::nullopt;
  }
  const CallGuard guard(where("setup"));
  const dgx_status s = workload_->desc->setup(instance_, fresh_error());
  return s == DGX_OK ? CallResult{} : failure("setup", s);
}

Expected<std::uint32_t> WorkloadInstance::case_count() {
  if (workload_->desc->case_count == nullptr) {
    return case_total_ = 1u;
  }
  std::uint32_t count = 0;
  const CallGuard guard(where("case_count"));
  const dgx_status s = workload_->desc->case_count(instance_, &count, fresh_error());
  if (s != DGX_OK) {
    return failure("case_count", s);
  }
  case_total_ = count;
  return count;
}

CallResult WorkloadInstance::begin_case(std::uint32_t index, dgx_case_desc& out) {
  out = {};
  out.struct_size = sizeof out;
  case_index_ = index;
  case_label_.clear();
  if (workload_->desc->begin_case == nullptr) {
    return std::nullopt;
  }
  const CallGuard guard(where("begin_case"));
  const dgx_status s = workload_->desc->begin_case(instance_, index, &out, fresh_error());
  return s == DGX_OK ? CallResult{} : failure("begin_case", s);
}

CallResult WorkloadInstance::run(const dgx_sample_request& request, dgx_sample_result& result, double& seconds) {
  dgx_error* error = fresh_error();
  dgx_status s = DGX_OK;
  {
    const CallGuard guard(where("run"));  // what the guard does on the way in and out is not timed
    const auto start = std::chrono::steady_clock::now();
    s = workload_->desc->run(instance_, &request, &result, error);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return s == DGX_OK ? CallResult{} : failure("run", s);
}

CallResult WorkloadInstance::end_case(std::uint32_t index, const dgx_sample_stats& stats) {
  if (workload_->desc->end_case == nullptr) {
    return std::nullopt;
  }
  const CallGuard guard(where("end_case"));
  const dgx_status s = workload_->desc->end_case(instance_, index, &stats, fresh_error());
  return s == DGX_OK ? CallResult{} : failure("end_case", s);
}

CallResult WorkloadInstance::finalize() {
  if (workload_->desc->finalize == nullptr) {
    return std::nullopt;
  }
  const CallGuard guard(where("finalize"));
  const dgx_status s = workload_->desc->finalize(instance_, fresh_error());
  return s == DGX_OK ? CallResult{} : failure("finalize", s);
}

// A projection has a deadline as a sample has (cancellation.hpp): a plugin that polls cancel_requested stops at it,
// one that does not is ended by the watchdog a grace period later, naming the limit.
CallResult WorkloadInstance::project(dgx_mode mode) {
  const unsigned limit = project_timeout_seconds();
  const std::string limit_text = "DGX_PROJECT_TIMEOUT_S (" + std::to_string(limit) + " s)";
  const CallDeadline deadline(steady_seconds() + limit,
                              "after " + limit_text +
                                  " ran out: project() must return, or poll cancel_requested, by then");
  dgx_status s = DGX_OK;
  {
    const CallGuard guard(where("project"));
    s = workload_->desc->project(instance_, mode, fresh_error());
  }
  if (s == DGX_ERR_CANCELLED && !cancel_requested() && call_deadline_passed()) {
    return Failure{ExitCode::run_failed, who(*workload_) + ": project() stopped at its time limit, " + limit_text +
                                             ", before it finished: raise the limit, or project less at once"};
  }
  return s == DGX_OK ? CallResult{} : failure("project", s);
}

}  // namespace dgx
