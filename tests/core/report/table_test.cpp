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

TEST_CASE("row groups keep the report's order, and the varying keys ignore what a reference row lacks") {
  Report report = sample_report();
  ResultRow reference;
  reference.workload = "gemm";
  reference.mode = ResultMode::reference;
  reference.config.set("n", 1024);
  report.rows.insert(report.rows.begin() + 1, reference);
  const std::vector<RowGroup> groups = group_rows(report.rows);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].title == "gemm");
  CHECK(groups[0].rows.size() == 3);
  CHECK(groups[1].title == "explore");
  CHECK(varying_config_keys(groups[0].rows, false) == std::vector<std::string>{"n"});  // not precision
  std::vector<const ResultRow*> all;
  for (const ResultRow& r : report.rows) {
    all.push_back(&r);
  }
  CHECK(varying_config_keys(all, false) == std::vector<std::string>{"precision", "n", "gpus"});
  CHECK(varying_config_keys(all, true) == std::vector<std::string>{"precision", "n", "gpus", "parallel.tp"});
}

TEST_CASE("a collective case's size is its size metric in whole bytes") {
  ResultRow row;
  CHECK(case_size(row).empty());
  row.add_metric({"size", 1.0, "GiB", false, {}});
  CHECK(case_size(row) == "1073741824");
  row.add_metric({"size", 3.0, "count", false, {}});  // not a size in bytes
  CHECK(case_size(row).empty());
}
