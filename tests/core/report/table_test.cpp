// Result rows as tables.
#include <doctest/doctest.h>

#include "dgx/core/report/table.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

TEST_CASE("rows group into tables with only the varying config keys and visible columns") {
  const auto tables = tabulate(sample_report().rows, false);
  REQUIRE(tables.size() == 2);
  const Table& gemm = tables[0];
  CHECK(gemm.title == "gemm");
  CHECK(gemm.headers == std::vector<std::string>{"mode", "n", "time.median [ms]", "tflops [TFLOP/s]", "bytes [MB]"});
  CHECK(gemm.cells[0] == std::vector<std::string>{"measured", "1024", "0.02500", "86.00", "6.291"});
  CHECK(gemm.cells[1][2] == "1.400");
  CHECK(tables[1].title == "explore");
  CHECK(tables[1].headers == std::vector<std::string>{"mode", "layout", "days", "tok/s/GPU", "step [s]"});
}
