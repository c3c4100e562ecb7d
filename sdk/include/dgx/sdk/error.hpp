// Exceptions of the C++ plugin layer. Plugin code throws them; the boundary (plugin.hpp) turns every exception
// into a status code and a message, so none ever reaches the host.
#pragma once

#include <array>
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

/// A status code's symbol and its meaning.
struct StatusName {
  dgx_status status;
  const char* symbol;       // "DGX_ERR_RUNTIME"
  const char* description;  // "runtime error"
};

// The SDK's tables are values of constexpr functions and internal-linkage constants, never inline variables: a plugin
// built with default visibility exports an inline variable as a unique symbol, and every such plugin in one host
// process binds to the first one's copy. Inline functions use the function, so that no definition of them names an
// object of one translation unit.

/// Every status code of the ABI, the one table behind status_name() and status_symbol().
constexpr std::array<StatusName, 11> status_names() {
  return {{
      {DGX_OK, "DGX_OK", "ok"},
      {DGX_ERR_INVALID_ARGUMENT, "DGX_ERR_INVALID_ARGUMENT", "invalid argument"},
      {DGX_ERR_UNSUPPORTED, "DGX_ERR_UNSUPPORTED", "unsupported"},
      {DGX_ERR_NO_DEVICE, "DGX_ERR_NO_DEVICE", "no device"},
      {DGX_ERR_OUT_OF_MEMORY, "DGX_ERR_OUT_OF_MEMORY", "out of memory"},
      {DGX_ERR_RUNTIME, "DGX_ERR_RUNTIME", "runtime error"},
      {DGX_ERR_CHECK_FAILED, "DGX_ERR_CHECK_FAILED", "check failed"},
      {DGX_ERR_CANCELLED, "DGX_ERR_CANCELLED", "cancelled"},
      {DGX_ERR_VERSION, "DGX_ERR_VERSION", "version mismatch"},
      {DGX_ERR_NOT_FOUND, "DGX_ERR_NOT_FOUND", "not found"},
      {DGX_ERR_INTERNAL, "DGX_ERR_INTERNAL", "internal error"},
  }};
}
/// status_names() as a constant (one copy per translation unit).
constexpr std::array<StatusName, 11> kStatusNames = status_names();

/// What a status code means, for people: "runtime error"; "unknown status" for a code outside the ABI.
inline const char* status_name(dgx_status status) noexcept {
  for (const StatusName& s : status_names()) {
    if (s.status == status) {
      return s.description;
    }
  }
  return "unknown status";
}

/// The status code's name in the ABI header, for messages about the ABI: "DGX_ERR_RUNTIME";
/// "unknown status 77" for a code outside it.
inline std::string status_symbol(dgx_status status) {
  for (const StatusName& s : status_names()) {
    if (s.status == status) {
      return s.symbol;
    }
  }
  return "unknown status " + std::to_string(status);
}

}  // namespace dgx::sdk
