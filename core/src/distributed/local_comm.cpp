// A world of one: every collective is a copy (or nothing, in place).
#include <cstdlib>
#include <cstring>

#include "comm_checks.hpp"
#include "dgx/core/distributed/comm.hpp"

namespace dgx {

namespace {

using detail::check_args;
using detail::check_rank;
using detail::element_size;

void copy(const void* send, void* recv, std::uint64_t count, dgx_dtype t) {
  if (send != recv && count > 0) {
    std::memmove(recv, send, count * element_size(t));
  }
}

dgx_status all_reduce(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_op op, dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);  // sum, prod, max, min and avg of one value are that value
  return DGX_OK;
}
dgx_status all_gather(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status reduce_scatter(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_op op,
                          dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status alltoall(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status broadcast(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, std::int32_t root,
                     dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
    return s;
  }
  if (const dgx_status s = check_rank(e, root, 1, "root"); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status reduce(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_op op, std::int32_t root,
                  dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
    return s;
  }
  if (const dgx_status s = check_rank(e, root, 1, "root"); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status sendrecv(void*, const void* send, std::int32_t to, void* recv, std::int32_t from, std::uint64_t count,
                    dgx_dtype t, dgx_error* e) {
  if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
    return s;
  }
  if (const dgx_status s = check_rank(e, to, 1, "peer"); s != DGX_OK) {
    return s;
  }
  if (const dgx_status s = check_rank(e, from, 1, "peer"); s != DGX_OK) {
    return s;
  }
  copy(send, recv, count, t);
  return DGX_OK;
}
dgx_status barrier(void*, dgx_error*) { return DGX_OK; }

}  // namespace

LocalComm::LocalComm() : LocalComm(RankInfo{}) {}

LocalComm::LocalComm(RankInfo info) : info_(std::move(info)) {
  api_ = {sizeof(dgx_comm_api),
          this,
          "local",
          0,
          1,
          &dgx::all_reduce,
          &dgx::all_gather,
          &dgx::reduce_scatter,
          &dgx::alltoall,
          &dgx::broadcast,
          &dgx::reduce,
          &dgx::sendrecv,
          &dgx::barrier};
}

void LocalComm::abort(int code) { std::_Exit(code); }

}  // namespace dgx
