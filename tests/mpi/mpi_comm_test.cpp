// The host's MPI communicator, run as two ranks (ctest starts it with mpirun -np 2): every collective, in place
// and out of place, for the element types MPI lacks (FP16, BF16, FP8 via user-defined operations) and for AVG.
// Only CHECKs here: a failing REQUIRE on one rank would leave the other waiting in a collective. The world and
// main() are in mpi_comm_main.cpp.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include <dgx/sdk/numeric.hpp>

#include "dgx/core/distributed/comm.hpp"
#include "mpi_world.hpp"

using namespace dgx;

namespace {

const dgx_comm_api& api() { return *testing::mpi_world().api(); }
int rank() { return testing::mpi_world().ranks().rank; }
int size() { return testing::mpi_world().ranks().world_size; }

}  // namespace

TEST_CASE("two ranks over MPI") {
  CHECK(std::string(testing::mpi_world().name()) == "mpi");
  CHECK(size() == 2);
  CHECK(std::string(api().name) == "mpi");
  CHECK(testing::mpi_world().ranks().local_size == 2);
}

TEST_CASE("all_reduce of every element type, every op") {
  for (dgx_dtype t = DGX_DTYPE_INT8; t <= DGX_DTYPE_FP8_E5M2; ++t) {
    for (dgx_op op = DGX_OP_SUM; op <= DGX_OP_AVG; ++op) {
      // Rank r holds (r + 1) x (1 + i % 2): sums, products, extremes and averages are exact even in FP8 E5M2.
      const std::size_t n = 9, bytes = n * 8;
      std::vector<std::byte> send(bytes), recv(bytes);
      const auto store = [&](void* base, std::size_t i, double v) {
        switch (t) {
        case DGX_DTYPE_INT8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(v); break;
        case DGX_DTYPE_UINT8: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(v); break;
        case DGX_DTYPE_INT32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(v); break;
        case DGX_DTYPE_UINT32: static_cast<std::uint32_t*>(base)[i] = static_cast<std::uint32_t>(v); break;
        case DGX_DTYPE_INT64: static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(v); break;
        case DGX_DTYPE_UINT64: static_cast<std::uint64_t*>(base)[i] = static_cast<std::uint64_t>(v); break;
        case DGX_DTYPE_FP16:
          static_cast<std::uint16_t*>(base)[i] = sdk::numeric::float_to_fp16(static_cast<float>(v));
          break;
        case DGX_DTYPE_BF16:
          static_cast<std::uint16_t*>(base)[i] = sdk::numeric::float_to_bf16(static_cast<float>(v));
          break;
        case DGX_DTYPE_FP32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
        case DGX_DTYPE_FP64: static_cast<double*>(base)[i] = v; break;
        case DGX_DTYPE_FP8_E4M3:
          static_cast<std::uint8_t*>(base)[i] = sdk::numeric::float_to_e4m3(static_cast<float>(v));
          break;
        default: static_cast<std::uint8_t*>(base)[i] = sdk::numeric::float_to_e5m2(static_cast<float>(v)); break;
        }
      };
      const auto load = [&](const void* base, std::size_t i) -> double {
        switch (t) {
        case DGX_DTYPE_INT8: return static_cast<const std::int8_t*>(base)[i];
        case DGX_DTYPE_UINT8: return static_cast<const std::uint8_t*>(base)[i];
        case DGX_DTYPE_INT32: return static_cast<const std::int32_t*>(base)[i];
        case DGX_DTYPE_UINT32: return static_cast<const std::uint32_t*>(base)[i];
        case DGX_DTYPE_INT64: return static_cast<double>(static_cast<const std::int64_t*>(base)[i]);
        case DGX_DTYPE_UINT64: return static_cast<double>(static_cast<const std::uint64_t*>(base)[i]);
        case DGX_DTYPE_FP16: return sdk::numeric::fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
        case DGX_DTYPE_BF16: return sdk::numeric::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
        case DGX_DTYPE_FP32: return static_cast<const float*>(base)[i];
        case DGX_DTYPE_FP64: return static_cast<const double*>(base)[i];
        case DGX_DTYPE_FP8_E4M3: return sdk::numeric::e4m3_to_float(static_cast<const std::uint8_t*>(base)[i]);
        default: return sdk::numeric::e5m2_to_float(static_cast<const std::uint8_t*>(base)[i]);
        }
      };
      for (std::size_t i = 0; i < n; ++i) {
        store(send.data(), i, (rank() + 1) * (1.0 + static_cast<double>(i % 2)));
      }
      for (const bool in_place : {false, true}) {
        void* out = in_place ? send.data() : recv.data();
        if (in_place) {
          for (std::size_t i = 0; i < n; ++i) {
            store(send.data(), i, (rank() + 1) * (1.0 + static_cast<double>(i % 2)));
          }
        }
        CHECK(api().all_reduce(api().ctx, send.data(), out, n, t, op, nullptr) == DGX_OK);
        for (std::size_t i = 0; i < n; ++i) {
          const double base = 1.0 + static_cast<double>(i % 2);  // rank 0: base, rank 1: 2 x base
          const double want = op == DGX_OP_SUM    ? 3 * base
                              : op == DGX_OP_PROD ? 2 * base * base
                              : op == DGX_OP_MAX  ? 2 * base
                              : op == DGX_OP_MIN  ? base
                                                  : (t <= DGX_DTYPE_UINT64 ? std::floor(1.5 * base) : 1.5 * base);
          CAPTURE(t);
          CAPTURE(op);
          CAPTURE(in_place);
          CHECK(load(out, i) == want);
        }
      }
    }
  }
}

TEST_CASE("all_gather, reduce_scatter and alltoall follow NCCL's layouts, in and out of place") {
  const std::size_t count = 4;
  std::vector<float> send(count * 2), recv(count * 2, -1);
  for (std::size_t i = 0; i < count; ++i) {
    send[i] = static_cast<float>(10 * rank() + static_cast<int>(i));
  }
  CHECK(api().all_gather(api().ctx, send.data(), recv.data(), count, DGX_DTYPE_FP32, nullptr) == DGX_OK);
  for (std::size_t i = 0; i < 2 * count; ++i) {
    const std::size_t expected = 10 * (i / count) + i % count;  // rank i / count's element i % count
    CHECK(recv[i] == static_cast<float>(expected));
  }

  std::vector<float> gathered(count * 2, -1);  // in place: this rank's chunk already in position
  for (std::size_t i = 0; i < count; ++i) {
    gathered[rank() * count + i] = static_cast<float>(10 * rank() + static_cast<int>(i));
  }
  CHECK(api().all_gather(api().ctx, gathered.data() + rank() * count, gathered.data(), count, DGX_DTYPE_FP32,
                         nullptr) == DGX_OK);
  CHECK(gathered == recv);

  std::vector<float> full(count * 2);
  for (std::size_t i = 0; i < 2 * count; ++i) {
    full[i] = static_cast<float>(i + 1);
  }
  std::vector<float> mine(count);
  CHECK(api().reduce_scatter(api().ctx, full.data(), mine.data(), count, DGX_DTYPE_FP32, DGX_OP_SUM, nullptr) ==
        DGX_OK);
  for (std::size_t i = 0; i < count; ++i) {
    CHECK(mine[i] == 2.0f * static_cast<float>(rank() * count + i + 1));
  }
  float* chunk = full.data() + rank() * count;  // in place: the result lands in this rank's chunk
  CHECK(api().reduce_scatter(api().ctx, full.data(), chunk, count, DGX_DTYPE_FP32, DGX_OP_AVG, nullptr) == DGX_OK);
  for (std::size_t i = 0; i < count; ++i) {
    CHECK(chunk[i] == static_cast<float>(rank() * count + i + 1));
  }

  std::vector<std::int32_t> a2a_send(2 * count), a2a_recv(2 * count);
  for (std::size_t i = 0; i < 2 * count; ++i) {
    a2a_send[i] = 100 * rank() + static_cast<int>(i);
  }
  CHECK(api().alltoall(api().ctx, a2a_send.data(), a2a_recv.data(), count, DGX_DTYPE_INT32, nullptr) == DGX_OK);
  for (std::size_t i = 0; i < 2 * count; ++i) {
    CHECK(a2a_recv[i] == static_cast<std::int32_t>(100 * (i / count) + rank() * count + i % count));
  }
}

TEST_CASE("broadcast, reduce and sendrecv") {
  double value = rank() == 1 ? 42.0 : 0.0, copy = -1;
  CHECK(api().broadcast(api().ctx, &value, &copy, 1, DGX_DTYPE_FP64, 1, nullptr) == DGX_OK);
  CHECK(copy == 42.0);
  std::int64_t x = rank() + 5, total = 0;
  CHECK(api().reduce(api().ctx, &x, &total, 1, DGX_DTYPE_INT64, DGX_OP_SUM, 0, nullptr) == DGX_OK);
  if (rank() == 0) {
    CHECK(total == 11);
  }
  std::int32_t out = rank(), in = -1;
  CHECK(api().sendrecv(api().ctx, &out, (rank() + 1) % 2, &in, (rank() + 1) % 2, 1, DGX_DTYPE_INT32, nullptr) ==
        DGX_OK);
  CHECK(in == (rank() + 1) % 2);
  std::array<char, 128> message{};
  dgx_error error{sizeof(dgx_error), message.size(), message.data()};
  CHECK(api().broadcast(api().ctx, &value, &copy, 1, DGX_DTYPE_FP64, 2, &error) == DGX_ERR_INVALID_ARGUMENT);
  CHECK(std::string(message.data()) == "root 2 is not a rank of a world of 2");
}

TEST_CASE("a failure on one rank becomes the same failure on all ranks, naming the rank") {
  const std::optional<Failure> local =
      rank() == 1 ? std::optional<Failure>(Failure{ExitCode::usage, "unknown config key 'x'"}) : std::nullopt;
  const auto agreed = testing::mpi_world().agree(local);
  CHECK(agreed.has_value());
  if (agreed) {
    CHECK(agreed->code == ExitCode::usage);
    CHECK(agreed->message == "rank 1: unknown config key 'x'");
  }
  CHECK_FALSE(testing::mpi_world().agree(std::nullopt));
}

TEST_CASE("host helpers: barrier, broadcast of bytes, slowest rank") {
  testing::mpi_world().barrier();
  std::string text = rank() == 0 ? "hello from rank 0" : std::string(17, ' ');
  testing::mpi_world().broadcast(text.data(), text.size(), 0);
  CHECK(text == "hello from rank 0");
  double t = rank() == 0 ? 1.0 : 3.0;
  testing::mpi_world().all_reduce(&t, 1, DGX_REDUCE_MAX);
  CHECK(t == 3.0);
}
