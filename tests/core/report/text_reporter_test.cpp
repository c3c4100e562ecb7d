// The terminal table and Markdown reporters.
#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

TEST_CASE("every printed row says measured, projected or reference") {
  const std::string text = render_table(sample_report());
  CHECK(text.find("measured") != std::string::npos);
  CHECK(text.find("projected") != std::string::npos);
  CHECK(text.find("Assumptions:\n  system h100-sxm") < text.find("\ngemm\n"));  // before-notes precede tables
  CHECK(text.find("Recommendation:") > text.find("explore\n"));
  CHECK(text.find("timing: device events") != std::string::npos);  // hidden provenance summarised
}

TEST_CASE("markdown renders pipe tables") {
  const std::string md = render_markdown(sample_report());
  CHECK(md.find("| mode | n | time.median [ms] |") != std::string::npos);
  CHECK(md.find("|---|---:|---:|") != std::string::npos);
}
