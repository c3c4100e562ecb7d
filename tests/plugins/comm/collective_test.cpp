#include <doctest/doctest.h>

#include "collective.hpp"

#include <cstddef>

using namespace dgx::plugins::comm;
using dgx::sdk::DType;

TEST_CASE("bus bandwidth factors are nccl-tests'") {
  CHECK(busbw_factor(Collective::all_reduce, 8) == doctest::Approx(2.0 * 7 / 8));
  CHECK(busbw_factor(Collective::all_gather, 8) == doctest::Approx(7.0 / 8));
  CHECK(busbw_factor(Collective::reduce_scatter, 4) == doctest::Approx(3.0 / 4));
  CHECK(busbw_factor(Collective::alltoall, 2) == doctest::Approx(0.5));
  CHECK(busbw_factor(Collective::broadcast, 8) == 1.0);
  CHECK(busbw_factor(Collective::reduce, 8) == 1.0);
  CHECK(busbw_factor(Collective::sendrecv, 8) == 1.0);
  CHECK(busbw_factor(Collective::all_reduce, 1) == 0.0);  // one rank moves nothing over a bus
}

TEST_CASE("size means what nccl-tests means, per collective") {
  const Shape ar = shape_for(Collective::all_reduce, 1024, DType::fp32, 4);
  CHECK(ar.count == 256);
  CHECK(ar.send_elems == 256);
  CHECK(ar.bytes == 1024);
  const Shape ag = shape_for(Collective::all_gather, 1024, DType::fp32, 4);  // size is the gathered buffer
  CHECK(ag.count == 64);
  CHECK(ag.send_elems == 64);
  CHECK(ag.recv_elems == 256);
  CHECK(ag.bytes == 1024);
  const Shape rs = shape_for(Collective::reduce_scatter, 1024, DType::fp32, 4);
  CHECK(rs.count == 64);
  CHECK(rs.send_elems == 256);
  CHECK(rs.recv_elems == 64);
  const Shape a2a = shape_for(Collective::alltoall, 1024, DType::bf16, 4);
  CHECK(a2a.count == 128);
  CHECK(a2a.send_elems == 512);
  CHECK(shape_for(Collective::all_gather, 1000, DType::fp32, 3).bytes == 996);  // rounded to whole elements
  CHECK(shape_for(Collective::all_gather, 8, DType::fp32, 4).count == 0);       // too small: skipped
}

TEST_CASE("in place follows NCCL's buffer contracts") {
  char send[64], recv[64];
  const Shape s = shape_for(Collective::all_gather, 64, DType::fp32, 4);  // 4 elements per rank
  Buffers b = place(Collective::all_gather, s, DType::fp32, 2, true, send, recv);
  CHECK(b.send == recv + std::ptrdiff_t{2} * 4 * 4);
  CHECK(b.recv == recv);
  const Shape r = shape_for(Collective::reduce_scatter, 64, DType::fp32, 4);
  b = place(Collective::reduce_scatter, r, DType::fp32, 3, true, send, recv);
  CHECK(b.send == send);
  CHECK(b.recv == send + std::ptrdiff_t{3} * 4 * 4);
  b = place(Collective::all_reduce, s, DType::fp32, 1, true, send, recv);
  CHECK(b.send == b.recv);
  b = place(Collective::all_reduce, s, DType::fp32, 1, false, send, recv);
  CHECK(b.send == send);
  CHECK_FALSE(has_in_place(Collective::alltoall));
  CHECK_FALSE(has_in_place(Collective::sendrecv));
}

TEST_CASE("collective names round-trip") {
  for (const Collective c : kAllCollectives) {
    CHECK(collective_from_name(name(c)) == c);
  }
  CHECK_FALSE(collective_from_name("allreduce"));
}
