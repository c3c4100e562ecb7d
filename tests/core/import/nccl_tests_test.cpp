// nccl_tests.cpp: nccl-tests' header, table and footer.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE(
    "an nccl-tests table gives two rows per size in the nccl-tests layout, world size and system from the ranks") {
  auto rows = import_data_file("nccl-tests/all_reduce_8xh100.txt");
  REQUIRE(rows);
  REQUIRE(rows->size() == 18);  // 9 sizes, out-of-place and in-place
  const ResultRow& last = rows->back();
  CHECK(last.workload == "all_reduce");
  CHECK(last.plugin == "comm");
  CHECK(last.label == "nccl-tests");
  CHECK(last.config_text("world_size") == "8");
  CHECK(last.config_text("system") == "h100-sxm");
  CHECK(last.config_text("transport") == "nccl");
  CHECK(last.config_text("comm.dtype") == "float");
  CHECK(last.config_text("comm.op") == "sum");
  CHECK(last.config_text("comm.placement") == "in-place");
  CHECK(last.config.find("comm.collective") == nullptr);
  CHECK(metric_value(last, "size") == 134217728);
  CHECK(metric_value(last, "time") == doctest::Approx(622.3e-6));
  CHECK(metric_value(last, "busbw") == doctest::Approx(377.43));
  CHECK(metric_value(last, "wrong") == 0);
  CHECK(field_value(last, "table_layout") == "nccl-tests");
  CHECK(field_value(last, "timing") == "nccl-tests: the mean time of 20 iterations after 5 warm-up iterations");
}

TEST_CASE("an nccl-tests table without its footer is accepted and says so") {
  auto rows = import_data_file("nccl-tests/no_footer.txt");
  REQUIRE(rows);
  CHECK(field_value(rows->front(), "note").find("no '# Avg bus bandwidth' footer") != std::string::npos);
}

TEST_CASE("an nccl-tests line cut mid-row is an error naming its line") {
  const std::string message = failure_text(import_data_file("nccl-tests/cut_mid_row.txt"));
  CHECK(message.find("nccl-tests/cut_mid_row.txt:26: a table line with") != std::string::npos);
}

TEST_CASE("a system --set against the GPU nccl-tests printed names both") {
  const std::string message = failure_text(import_data_file("nccl-tests/all_reduce_8xh100.txt", {"system=b200"}));
  CHECK(message.find("the log says system=h100-sxm but --set system=b200") != std::string::npos);
}
