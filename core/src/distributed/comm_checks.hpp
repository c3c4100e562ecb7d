// Private: argument checks shared by the host's dgx_comm_api implementations.
#pragma once

#include <cstdint>
#include <cstdio>

#include <dgx/plugin.h>
#include <dgx/sdk/comm.hpp>

namespace dgx::detail {

inline void set_error(dgx_error* error, const char* message) {
  if (error == nullptr || error->message == nullptr || error->capacity == 0) {
    return;
  }
  std::snprintf(error->message, error->capacity, "%s", message);
}

inline void set_error(dgx_error* error, const char* format, long long value) {
  if (error == nullptr || error->message == nullptr || error->capacity == 0) {
    return;
  }
  std::snprintf(error->message, error->capacity, format, value);
}

inline bool valid_dtype(dgx_dtype t) { return t >= DGX_DTYPE_INT8 && t <= DGX_DTYPE_FP8_E5M2; }
inline bool valid_op(dgx_op op) { return op >= DGX_OP_SUM && op <= DGX_OP_AVG; }
inline std::size_t element_size(dgx_dtype t) { return sdk::dtype_size(static_cast<sdk::DType>(t)); }

/// DGX_OK, or an argument error with its message.
inline dgx_status check_args(dgx_error* error, const void* send, const void* recv, std::uint64_t count, dgx_dtype t,
                             dgx_op op = DGX_OP_SUM) {
  if (!valid_dtype(t)) {
    set_error(error, "invalid dtype %lld", t);
    return DGX_ERR_INVALID_ARGUMENT;
  }
  if (!valid_op(op)) {
    set_error(error, "invalid reduction op %lld", op);
    return DGX_ERR_INVALID_ARGUMENT;
  }
  if (count > 0 && (send == nullptr || recv == nullptr)) {
    set_error(error, "null buffer for %lld elements", static_cast<long long>(count));
    return DGX_ERR_INVALID_ARGUMENT;
  }
  return DGX_OK;
}

inline dgx_status check_rank(dgx_error* error, int rank, int size, const char* what) {
  if (rank >= 0 && rank < size) {
    return DGX_OK;
  }
  if (error != nullptr && error->message != nullptr && error->capacity > 0) {
    std::snprintf(error->message, error->capacity, "%s %d is not a rank of a world of %d", what, rank, size);
  }
  return DGX_ERR_INVALID_ARGUMENT;
}

}  // namespace dgx::detail
