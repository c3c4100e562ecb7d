// Exceptions of the C++ plugin layer. Plugin code throws them; the boundary (plugin.hpp) turns every exception
// into a status code and a message, so none ever reaches the host.
#pragma once

#include <stdexcept>
#include <string>

#include <dgx/plugin.h>

namespace dgx::sdk {

/// An error with the ABI status it maps to.
class Error : public std::runtime_error {
public:
  Error(dgx_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  [[nodiscard]] dgx_status status() const noexcept { return status_; }

private:
  dgx_status status_;
};

/// Bad configuration or input: the user can fix it (the host exits with its config-error code).
struct InvalidArgument : Error {
  explicit InvalidArgument(const std::string& message) : Error(DGX_ERR_INVALID_ARGUMENT, message) {}
};
/// A device the operation needs is not there (no GPU, no driver).
struct NoDevice : Error {
  explicit NoDevice(const std::string& message) : Error(DGX_ERR_NO_DEVICE, message) {}
};
/// The operation or mode is not implemented.
struct Unsupported : Error {
  explicit Unsupported(const std::string& message) : Error(DGX_ERR_UNSUPPORTED, message) {}
};
/// A correctness check of computed results failed.
struct CheckFailed : Error {
  explicit CheckFailed(const std::string& message) : Error(DGX_ERR_CHECK_FAILED, message) {}
};
/// The operation failed while running (library call, I/O).
struct RuntimeError : Error {
  explicit RuntimeError(const std::string& message) : Error(DGX_ERR_RUNTIME, message) {}
};
/// The host asked to stop.
struct Cancelled : Error {
  explicit Cancelled(const std::string& message = "cancelled") : Error(DGX_ERR_CANCELLED, message) {}
};

/// Human-readable name of a status code.
inline const char* status_name(dgx_status status) noexcept {
  switch (status) {
  case DGX_OK: return "ok";
  case DGX_ERR_INVALID_ARGUMENT: return "invalid argument";
  case DGX_ERR_UNSUPPORTED: return "unsupported";
  case DGX_ERR_NO_DEVICE: return "no device";
  case DGX_ERR_OUT_OF_MEMORY: return "out of memory";
  case DGX_ERR_RUNTIME: return "runtime error";
  case DGX_ERR_CHECK_FAILED: return "check failed";
  case DGX_ERR_CANCELLED: return "cancelled";
  case DGX_ERR_VERSION: return "version mismatch";
  case DGX_ERR_NOT_FOUND: return "not found";
  case DGX_ERR_INTERNAL: return "internal error";
  default: return "unknown status";
  }
}

}  // namespace dgx::sdk
