// The host communicator of a world of one: every collective is a copy, with NCCL's argument checks.
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "dgx/core/distributed/comm.hpp"

using namespace dgx;

TEST_CASE("a world of one copies") {
  LocalComm comm;
  const dgx_comm_api& api = *comm.api();
  CHECK(api.size == 1);
  CHECK(std::string(api.name) == "local");
  const std::vector<float> send{1, 2, 3};
  std::vector<float> recv(3, 0);
  CHECK(api.all_reduce(api.ctx, send.data(), recv.data(), 3, DGX_DTYPE_FP32, DGX_OP_AVG, nullptr) == DGX_OK);
  CHECK(recv == send);
  recv.assign(3, 0);
  CHECK(api.all_gather(api.ctx, send.data(), recv.data(), 3, DGX_DTYPE_FP32, nullptr) == DGX_OK);
  CHECK(recv == send);
  recv.assign(3, 0);
  CHECK(api.sendrecv(api.ctx, send.data(), 0, recv.data(), 0, 3, DGX_DTYPE_FP32, nullptr) == DGX_OK);
  CHECK(recv == send);
  CHECK(api.barrier(api.ctx, nullptr) == DGX_OK);
}

TEST_CASE("bad arguments are rejected with a message") {
  LocalComm comm;
  const dgx_comm_api& api = *comm.api();
  std::array<char, 128> message{};
  dgx_error error{sizeof(dgx_error), message.size(), message.data()};
  float x = 1;
  CHECK(api.broadcast(api.ctx, &x, &x, 1, DGX_DTYPE_FP32, 1, &error) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(std::string(message.data()) == "root 1 is not a rank of a world of 1");
  CHECK(api.all_reduce(api.ctx, &x, &x, 1, 99, DGX_OP_SUM, &error) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(std::string(message.data()) == "invalid dtype 99");
  CHECK(api.all_reduce(api.ctx, nullptr, &x, 1, DGX_DTYPE_FP32, DGX_OP_SUM, &error) == DGX_ERR_INVALID_ARGUMENT);
}

TEST_CASE("agreement in a world of one is the local outcome") {
  LocalComm comm;
  CHECK_FALSE(comm.agree(std::nullopt));
  const auto failed = comm.agree(Failure{ExitCode::usage, "bad key"});
  REQUIRE(failed);
  CHECK(failed->message == "bad key");
}

TEST_CASE("a single process without a launcher gets a local communicator") {
  auto comm = make_host_comm(RankInfo{});
  REQUIRE(comm);
  CHECK(std::string(comm.value()->name()) == "local");
}
