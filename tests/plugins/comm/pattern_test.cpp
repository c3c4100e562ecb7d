// The correctness check: expected values agree with an independent simulation of each collective, and a single
// wrong element is caught.
#include <doctest/doctest.h>

#include <vector>

#include "pattern.hpp"

using namespace dgx::plugins::comm;
using dgx::sdk::DType;
using dgx::sdk::ReduceOp;

namespace {

// What rank `me` holds after the collective, computed from every rank's send data by definition.
std::vector<double> simulate(Collective c, const Pattern& p, const Shape& s, int ranks, int me, ReduceOp op, int root) {
  auto reduce = [&](std::size_t index) {
    double acc = p.send_value(0, index);
    for (int r = 1; r < ranks; ++r) {
      const double v = p.send_value(r, index);
      acc = op == ReduceOp::prod  ? acc * v
            : op == ReduceOp::max ? std::max(acc, v)
            : op == ReduceOp::min ? std::min(acc, v)
                                  : acc + v;
    }
    return op == ReduceOp::avg ? acc / ranks : acc;
  };
  std::vector<double> out(s.recv_elems);
  for (std::size_t i = 0; i < s.recv_elems; ++i) {
    switch (c) {
    case Collective::all_reduce:
    case Collective::reduce: out[i] = reduce(i); break;
    case Collective::broadcast: out[i] = p.send_value(root, i); break;
    case Collective::all_gather: out[i] = p.send_value(static_cast<int>(i / s.count), i % s.count); break;
    case Collective::reduce_scatter: out[i] = reduce(static_cast<std::size_t>(me) * s.count + i); break;
    case Collective::alltoall:
      out[i] = p.send_value(static_cast<int>(i / s.count), static_cast<std::size_t>(me) * s.count + i % s.count);
      break;
    case Collective::sendrecv: out[i] = p.send_value((me + ranks - 1) % ranks, i); break;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("expected values match a direct simulation, and one wrong element is counted") {
  for (const DType type :
       {DType::fp32, DType::bf16, DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2, DType::int8, DType::uint64}) {
    for (const Collective c : kAllCollectives) {
      for (const ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg}) {
        const int ranks = 4, me = 2, root = 1;
        const Pattern p(c, type, op, ranks, root);
        REQUIRE(p.checkable());
        const Shape s = shape_for(c, 256, type, ranks);
        std::vector<std::byte> result(s.recv_elems * dgx::sdk::dtype_size(type));
        const auto truth = simulate(c, p, s, ranks, me, op, root);
        for (std::size_t i = 0; i < truth.size(); ++i) {
          store(type, result.data(), i, truth[i]);
        }
        CAPTURE(dgx::sdk::dtype_name(type));
        CAPTURE(name(c));
        CAPTURE(dgx::sdk::op_name(op));
        CHECK(p.count_wrong(result.data(), s, me) == 0);
        store(type, result.data(), 3, load(type, result.data(), 3) + 1.0);
        CHECK(p.count_wrong(result.data(), s, me) == (p.has_result(me) ? 1 : 0));
      }
    }
  }
}

TEST_CASE("values stay exactly representable: sums in FP8 use small integers") {
  const Pattern p(Collective::all_reduce, DType::fp8_e5m2, ReduceOp::sum, 8, 0);
  REQUIRE(p.checkable());
  for (std::size_t i = 0; i < 64; ++i) {
    CHECK(p.send_value(3, i) == 1.0);  // 8 ranks x 1 = 8, exact in E5M2
  }
}

TEST_CASE("a sum no element type can count exactly is not checked, and says why") {
  const Pattern p(Collective::all_reduce, DType::fp8_e5m2, ReduceOp::sum, 16, 0);
  CHECK_FALSE(p.checkable());
  CHECK(p.why_not() == "a sum over 16 ranks is not exact in fp8_e5m2");
}

TEST_CASE("reduce leaves results on the root only") {
  const Pattern p(Collective::reduce, DType::fp32, ReduceOp::sum, 2, 1);
  CHECK(p.has_result(1));
  CHECK_FALSE(p.has_result(0));
}

TEST_CASE("in-place inputs are laid out where NCCL reads them") {
  const Shape s = shape_for(Collective::all_gather, 64, DType::fp32, 4);
  const Pattern p(Collective::all_gather, DType::fp32, ReduceOp::sum, 4, 0);
  std::vector<float> send(s.send_elems), recv(s.recv_elems);
  p.prepare(send.data(), recv.data(), s, 2, true);
  CHECK(recv[0] == 0.0f);  // other ranks' slots are empty
  CHECK(recv[2 * s.count] == static_cast<float>(p.send_value(2, 0)));
  const Pattern scatter(Collective::reduce_scatter, DType::fp32, ReduceOp::sum, 4, 0);
  CHECK(scatter.result_in_send(true));
  CHECK(scatter.result_offset(shape_for(Collective::reduce_scatter, 64, DType::fp32, 4), 3, true) == 3 * 4);
}

TEST_CASE("element codecs round values to the type") {
  std::vector<std::byte> buffer(16);
  store(DType::fp8_e4m3, buffer.data(), 0, 500.0);  // saturates
  CHECK(load(DType::fp8_e4m3, buffer.data(), 0) == 448.0);
  store(DType::bf16, buffer.data(), 0, 1.0 + 1.0 / 512);  // below bf16 resolution: rounds to 1
  CHECK(load(DType::bf16, buffer.data(), 0) == 1.0);
  store(DType::int8, buffer.data(), 0, -7.0);
  CHECK(load(DType::int8, buffer.data(), 0) == -7.0);
}
