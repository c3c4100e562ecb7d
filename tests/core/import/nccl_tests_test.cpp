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

namespace {

const dgx::logs::CollectiveLine& largest(const dgx::logs::ParsedRun& run, const std::string& placement) {
  const dgx::logs::CollectiveLine* best = nullptr;
  for (const auto& l : run.lines) {
    if (l.placement == placement && (best == nullptr || l.size_bytes > best->size_bytes)) {
      best = &l;
    }
  }
  REQUIRE(best != nullptr);
  return *best;
}

}  // namespace

TEST_CASE("an old nccl-tests table without redop, root or header is read from its width, the first table only") {
  auto run = read_data_run("nccl-tests/old_format_no_header.txt");
  REQUIRE(run);
  CHECK(run->lines.size() == 24);  // the next test's header after the footer starts no second table
  const auto& l = largest(*run, "out-of-place");
  CHECK(l.size_bytes == 134217728);
  CHECK(l.type == "float");
  CHECK(l.redop.empty());
  CHECK(l.busbw == doctest::Approx(20.34));
  CHECK(l.wrong == 0);
}

TEST_CASE("an mpirun --tag-output table whose header puts in-place first reads its one half as in-place") {
  auto run = read_data_run("nccl-tests/tag_output_in_place_first.txt");
  REQUIRE(run);
  REQUIRE(run->lines.size() == 1);
  CHECK(run->lines[0].placement == "in-place");
  CHECK(run->lines[0].busbw == doctest::Approx(213.53));
  CHECK(run->lines[0].algbw == doctest::Approx(113.88));
  CHECK(run->last_line == 9);  // the footer, a line of the file as it is
}

TEST_CASE("rccl-tests says so in its banner, and a device list without GPU names still counts the ranks") {
  auto run = read_data_run("nccl-tests/rccl_banner.txt");
  REQUIRE(run);
  CHECK(run->tool == "rccl-tests");
  CHECK(run->version == "develop:5272cd1");
  CHECK(run->printed_device.empty());
  CHECK(run->config.at("world_size").as_int() == 2);
  CHECK(largest(*run, "out-of-place").busbw == doctest::Approx(369.04));
  CHECK(run->timing.rfind("rccl-tests: the mean time of", 0) == 0);
}

TEST_CASE("a summary of several runs' rows is read up to its first table, and says the file goes on") {
  auto run = read_data_run("nccl-tests/rccl_egrep_sections.txt");
  REQUIRE(run);
  CHECK(run->lines.size() == 6);
  CHECK(largest(*run, "out-of-place").busbw == doctest::Approx(319.08));
  const std::string notes = run->notes.front();
  CHECK(notes.find("another table at line 8") != std::string::npos);
}

TEST_CASE("a markdown paste of nccl-tests: fences, a quoted command, header lines that lost their '#'") {
  auto run = read_data_run("nccl-tests/markdown_paste.md");
  REQUIRE(run);
  CHECK(run->config.at("world_size").as_int() == 3);
  CHECK(run->config.at("comm.collective").as_string() == "all_reduce");
  CHECK(run->printed_device == "NVIDIA H100 80GB HBM3");
  CHECK(largest(*run, "out-of-place").busbw == doctest::Approx(338.82));
  CHECK(run->timing == "nccl-tests: the mean time of 20 iterations after 5 warm-up iterations");
}

TEST_CASE("an nccl-tests log that ends after its column header is refused, naming the header's line") {
  auto run = read_data_run("nccl-tests/headers_without_rows.txt");
  REQUIRE_FALSE(run);
  CHECK(run.error().message.find(
            "nccl-tests/headers_without_rows.txt:12: no table row after nccl-tests' column header") == 0);
}
