// The JUnit reporter: suites, test cases, verdicts as CI reads them, escaping, and the schema (with xmllint).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "format_checkers.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The <testcase ...> element whose name attribute starts with `name`.
std::string test_case(const std::string& xml, const std::string& name) {
  const std::size_t at = xml.find("name=\"" + name);
  if (at == std::string::npos) {
    return {};
  }
  const std::size_t start = xml.rfind("<testcase", at);
  return xml.substr(start, xml.find("</testcase>", at) - start);
}

ResultRow judged_row(const std::string& label, const std::vector<Field>& verdicts) {
  ResultRow r;
  r.workload = "llm-pretrain";
  r.plugin = "llm-pretrain";
  r.mode = ResultMode::projected;
  r.label = label;
  r.add_metric({"tokens_per_s_per_gpu", 1000, "tokens/s", false, {}});
  for (const Field& f : verdicts) {
    r.add_field(f);
  }
  return r;
}

Report judged_report() {
  Report report;
  report.context.set("workload", "llm-pretrain");
  report.rows = {
      judged_row("passes", {{"verdict", "pass", false}, {"reference", "1000 vs 990 tokens/s", true}}),
      judged_row("fails", {{"verdict", "fail", false}, {"reference", "900 vs 1000 tokens/s", true}}),
      judged_row("regresses", {{"verdict", "regression", false}, {"why", "U test p = 0.001 < alpha 0.05", true}}),
      judged_row("slower", {{"verdict.projection", "slower", false}, {"projection", "8% below the band", true}}),
      judged_row("unjudged", {{"verdict", "no reference", false}, {"reference", "none: no reference", true}}),
      judged_row("too far", {{"verdict", "no comparable reference", false}}),
      judged_row("too new", {{"verdict", "not enough history", false}}),
      judged_row("against its projection",
                 {{"verdict", "no reference", false}, {"verdict.projection", "as projected", false}}),
      judged_row("plain", {}),
  };
  return report;
}

}  // namespace

TEST_CASE("one testsuite per table and one testcase per row, counted") {
  Report report = sample_report();
  report.context.set("time", "2026-01-02T03:04:05Z");
  json::Object host;
  host.set("hostname", "node-7");
  report.context.set("host", host);
  const std::string xml = render_junit(report);
  CHECK(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dgxhost gemm\" tests=\"3\" "
                        "failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.001425\">\n"));
  CHECK(xml.find("<testsuite name=\"gemm\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.001425\" "
                 "timestamp=\"2026-01-02T03:04:05\" hostname=\"node-7\">") != std::string::npos);
  CHECK(xml.find("<testsuite name=\"explore\" tests=\"1\"") != std::string::npos);
  CHECK(count_of(xml, "<testcase ") == 3);
  CHECK(count_of(xml, "<properties>") == 2);
  CHECK(xml.find("<property name=\"workload\" value=\"gemm\"/>") != std::string::npos);
}

TEST_CASE("a test case is named by its label and the config that tells it apart, its class dgx.plugin.table") {
  const std::string xml = render_junit(sample_report());
  // gemm: n varies between its two rows; the time is the median in seconds, as a decimal.
  CHECK(xml.find("<testcase classname=\"dgx.gemm-plugin.gemm\" name=\"n=1024\" time=\"0.000025\">") !=
        std::string::npos);
  CHECK(xml.find("<testcase classname=\"dgx.llm.explore\" name=\"projected\">") != std::string::npos);
  Report report;
  ResultRow row = sample_report().rows[0];
  row.table = "compare time.median (lower is better)";
  row.label = "1000 us";
  report.rows = {row, row};
  const std::string twice = render_junit(report);
  CHECK(twice.find("classname=\"dgx.gemm-plugin.compare_time_median_lower_is_better\" name=\"1000 us\"") !=
        std::string::npos);
  CHECK(twice.find("name=\"1000 us #2\"") != std::string::npos);  // names stay unique within a suite
}

TEST_CASE("verdicts decide: fail, regression and slower fail, what could not be judged is skipped, the rest pass") {
  const std::string xml = render_junit(judged_report());
  CHECK(xml.find("<testsuite name=\"llm-pretrain\" tests=\"9\" failures=\"3\" errors=\"0\" skipped=\"3\"") !=
        std::string::npos);
  CHECK(test_case(xml, "passes").find("<failure") == std::string::npos);
  CHECK(test_case(xml, "passes").find("<skipped") == std::string::npos);
  CHECK(test_case(xml, "fails").find("<failure message=\"fail: 900 vs 1000 tokens/s\" type=\"fail\">") !=
        std::string::npos);
  CHECK(test_case(xml, "regresses").find("<failure message=\"regression: U test p = 0.001 &lt; alpha 0.05\"") !=
        std::string::npos);
  CHECK(test_case(xml, "slower").find("<failure message=\"projection slower: 8% below the band\" type=\"slower\"") !=
        std::string::npos);
  CHECK(test_case(xml, "unjudged").find("<skipped message=\"no reference: none: no reference\"/>") !=
        std::string::npos);
  CHECK(test_case(xml, "too far").find("<skipped message=\"no comparable reference\"/>") != std::string::npos);
  CHECK(test_case(xml, "too new").find("<skipped message=\"not enough history\"/>") != std::string::npos);
  // Judged against its projection, it passed: no reference alone does not skip it.
  CHECK(test_case(xml, "against its projection").find("<skipped") == std::string::npos);
  CHECK(test_case(xml, "plain").find("<failure") == std::string::npos);
  CHECK(test_case(xml, "plain").find("<skipped") == std::string::npos);
  // What CI shows under each case: mode, metrics, provenance.
  CHECK(test_case(xml, "fails")
            .find("<system-out>mode: projected\ntokens_per_s_per_gpu: 1000 tokens/s\n"
                  "info.verdict: fail\ninfo.reference: 900 vs 1000 tokens/s\n</system-out>") != std::string::npos);
}

TEST_CASE("a failed report adds an error test case, unless only its rows' verdicts failed") {
  Report report = sample_report();
  report.exit_code = 4;
  report.error = "platform-check needs a GPU: none";
  std::string xml = render_junit(report);
  CHECK(xml.find("errors=\"1\"") != std::string::npos);
  CHECK(test_case(xml, "exit status")
            .find("<error message=\"platform-check needs a GPU: none\" type=\"exit code 4\">"
                  "exit code 4: platform-check needs a GPU: none</error>") != std::string::npos);
  CHECK(xml.find("<testsuite name=\"gemm\" tests=\"3\"") != std::string::npos);  // in the workload's suite

  Report judged = judged_report();
  judged.exit_code = to_int(ExitCode::check_failed);
  judged.error = "1 row(s) below verdict.threshold";
  xml = render_junit(judged);
  CHECK(xml.find("<error") == std::string::npos);  // the failures say it
  CHECK(xml.find("<property name=\"exit_code\" value=\"5\"/>") != std::string::npos);

  Report empty;
  empty.exit_code = 3;
  empty.error = "no plugin 'spni'";
  xml = render_junit(empty);
  CHECK(xml.find("<testsuite name=\"dgxhost\" tests=\"1\" failures=\"0\" errors=\"1\"") != std::string::npos);
}

TEST_CASE("text is escaped for XML: markup, quotes, control characters, invalid UTF-8, U+FFFF") {
  Report report = sample_report();
  report.rows[0].label = "<a href=\"x\">&'</a>\x01\xff\xef\xbf\xbf";
  report.rows[0].add_field({"note", "line one\nline two ]]> end", false});
  const std::string xml = render_junit(report);
  CHECK(xml.find("name=\"&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;\\x01\xef\xbf\xbd\xef\xbf\xbd") !=
        std::string::npos);
  CHECK(xml.find("info.note: line one\nline two ]]&gt; end") != std::string::npos);
  CHECK(xml.find('\x01') == std::string::npos);
  CHECK(xml.find("\xef\xbf\xbf") == std::string::npos);
}

TEST_CASE("JUnit output validates against the JUnit schema, with failures, skips, errors and hostile text") {
  if (!dgx::testing::have_tool("xmllint", "libxml2-utils")) {
    return;
  }
  Report hostile = sample_report();
  hostile.context.set("time", "2026-01-02T03:04:05Z");
  hostile.rows[0].label = "<a href=\"x\">&'</a>\x01\x1b[31m\xff\xef\xbf\xbe";
  hostile.rows[0].add_field({"note", "tab\tnewline\ncarriage\r", false});
  hostile.exit_code = 1;
  hostile.error = "plugin crashed: \"<boom>\"";
  Report bare;  // no context at all: no properties, no timestamp, no host
  bare.rows = sample_report().rows;
  for (const Report& report : {sample_report(), judged_report(), hostile, bare, Report{}}) {
    const std::string xml = render_junit(report);
    const auto check = dgx::testing::junit_validate(xml);
    CHECK_MESSAGE(check.exit_code == 0, check.err, "\n", xml);
  }
}

TEST_CASE("the JUnit schema refuses broken documents, so its approval above means something") {
  if (!dgx::testing::have_tool("xmllint", "libxml2-utils")) {
    return;
  }
  const std::string good = render_junit(judged_report());
  REQUIRE(dgx::testing::junit_validate(good).exit_code == 0);
  const auto broken = [&](const std::string& from, const std::string& to) {
    std::string xml = good;
    const std::size_t at = xml.find(from);
    REQUIRE(at != std::string::npos);
    xml.replace(at, from.size(), to);
    return dgx::testing::junit_validate(xml).exit_code;
  };
  CHECK(broken("tests=\"9\"", "tests=\"nine\"") != 0);                              // a count that is no number
  CHECK(broken("<testcase classname", "<testcase nameless=\"1\" classname") != 0);  // an unknown attribute
  CHECK(broken(" name=\"passes\"", "") != 0);                                       // a test case without a name
  CHECK(broken("</system-out>\n</testcase>", "</system-out>\n<failure type=\"x\"/>\n</testcase>") != 0);  // order
  CHECK(broken("skipped=\"3\" time=\"0\">", "skipped=\"3\" time=\"1e-05\">") != 0);  // no exponent in a decimal
  CHECK(broken("</testsuites>", "") != 0);                                           // not well-formed
  CHECK(broken("<skipped message", "<skip message") != 0);                           // not an element of the format
}

TEST_CASE("under a test case, a metric says what its workload declares of it: its help and which way is better") {
  Report report = judged_report();
  WorkloadDeclarations d;
  d.plugin = "llm-pretrain";
  d.workload = "llm-pretrain";
  d.metrics = {{"tokens_per_s_per_gpu", "tokens/s", Better::higher, "tok/s/GPU", "tokens/s / GPUs"}};
  report.workloads.push_back(d);
  const std::string xml = render_junit(report);
  CHECK(test_case(xml, "plain").find("tokens_per_s_per_gpu: 1000 tokens/s (tokens/s / GPUs; higher is better)\n") !=
        std::string::npos);
}
