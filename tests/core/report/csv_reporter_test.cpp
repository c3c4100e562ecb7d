// The CSV reporter.
#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

TEST_CASE("CSV has every column, unscaled, and quotes what needs quoting") {
  Report report = sample_report();
  report.rows[2].add_field({"note", "a, \"b\"", false});
  const std::string csv = render_csv(report);
  const auto first_line = csv.substr(0, csv.find('\n'));
  CHECK(first_line.find(
            "workload,plugin,mode,precision,n,gpus,parallel.tp,info.timing,info.layout,info.note,time.median [s]") ==
        0);
  CHECK(csv.find("internal [1]") != std::string::npos);
  CHECK(csv.find("\"a, \"\"b\"\"\"") != std::string::npos);
  CHECK(csv.find(",2.5e-05,") != std::string::npos);
}
