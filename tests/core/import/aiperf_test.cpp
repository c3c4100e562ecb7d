// aiperf.cpp: AIPerf's profile_export_aiperf.json and .csv.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("an AIPerf JSON export gives medians and percentiles in seconds and its input config") {
  auto rows = import_data_file("aiperf/profile_export_aiperf.json", {"system=h100-sxm", "gpus=4"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.workload == "llm-inference");
  CHECK(r.label == "aiperf");  // what stays the same from night to night; the file is a field
  CHECK(r.config_text("model") == "llama3.1-70b");
  CHECK(r.config_text("serve.concurrency") == "32");
  CHECK(r.config_text("serve.isl") == "2048");
  CHECK(r.config_text("serve.osl") == "512");
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.1703));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.3552));
  CHECK(metric_value(r, "tpot") == doctest::Approx(0.01584));
  CHECK(metric_value(r, "e2e_latency.p90") == doctest::Approx(8.7408));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1951.7));
  CHECK(metric_value(r, "output_tokens_per_s_per_gpu") == doctest::Approx(1951.7 / 4));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(3.812));
}

TEST_CASE("an AIPerf CSV export gives the same statistics, the configuration from --set") {
  auto rows = import_data_file("aiperf/profile_export_aiperf.csv",
                               {"system=h100-sxm", "gpus=4", "model=llama3.1-70b", "serve.isl=2048"});
  REQUIRE(rows);
  CHECK(metric_value(rows->front(), "ttft.p90") == doctest::Approx(0.2419));
  CHECK(metric_value(rows->front(), "output_tokens_per_s") == doctest::Approx(1951.7));
}

TEST_CASE("an AIPerf export of a cancelled run is refused") {
  const std::string message = failure_text(import_data_file("aiperf/cancelled.json", {"system=h100-sxm", "gpus=4"}));
  CHECK(message.find("an unfinished AIPerf run: was_cancelled is true") != std::string::npos);
}
