// A unit test of the hello plugin with the SDK's test harness: the plugin's own entry symbol, the fake host and
// its lifecycle driver; no dgxhost, no test framework. Build it next to the plugin (see CMakeLists.txt).
#include <dgx/sdk/testing/fake_host.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) {
    return;
  }
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  ++failures;
}

}  // namespace

int main() {
  // The descriptor dgxhost would get from the library, here from the same code linked into the test.
  const dgx_host_offer offer{sizeof(dgx_host_offer), DGX_ABI_VERSION, DGX_ABI_VERSION, "hello_test", "0"};
  const dgx_plugin_desc* plugin = nullptr;
  expect(dgx_plugin_entry(&offer, &plugin) == DGX_OK && plugin != nullptr, "the entry symbol answers");
  if (plugin == nullptr) {
    return 1;
  }
  const dgx_workload_desc& hello = plugin->workloads[0];
  expect(hello.metric_desc_count == 2 && hello.metric_descs[0].better == DGX_BETTER_HIGHER,
         "it declares its metrics: bandwidth is better higher");
  expect(hello.identity_key_count == 1 && std::string(hello.identity_keys[0]) == "hello.elements",
         "and the key that identifies a run");

  dgx::sdk::testing::FakeHost host;
  host.set("hello.elements", std::int64_t{1000});
  host.set("hello.assumed_bandwidth", 20.0);
  const auto measured = dgx::sdk::testing::measure(hello, host.api(), /*iterations=*/4);
  expect(measured.ok(), "measure mode runs: " + measured.call + ": " + measured.message);
  expect(host.added_metrics.count("bandwidth") == 1, "end_case reports the bandwidth");
  expect(host.added_metrics["bandwidth"].second == "GB/s", "in GB/s");

  const auto projected = dgx::sdk::testing::project(hello, host.api());
  expect(projected.ok() && host.rows.size() == 1, "project mode emits one row");
  expect(!host.rows.empty() && host.rows[0].metrics["time"].first == 1000 * 8 / 20e9, "the roofline time");

  host.set("hello.elements", std::int64_t{0});
  const auto refused = dgx::sdk::testing::measure(hello, host.api());
  expect(refused.status == DGX_ERR_INVALID_ARGUMENT && refused.call == "create", "a bad configuration is refused");

  // The format it reads: the probe knows the tool's lines, the reader makes a measured row of the hello workload.
  expect(plugin->format_count == 1 && std::string(plugin->formats[0].name) == "hello-log", "it declares its format");
  const dgx_format_desc& format = plugin->formats[0];
  const std::string log = "hello v1\nhello: elements=1000 time_ms=0.004\nhello: elements=1000 time_ms=0.002\n"
                          "hello: elements=1000 time_ms=0.003\n";
  expect(format.probe(&format, log.c_str(), log.size()) == 90, "the probe recognises the tool's log");
  const std::string other = "step: 1 loss: 2.0\n";
  expect(format.probe(&format, other.c_str(), other.size()) == 0, "and no other");
  dgx::sdk::testing::FakeHost reader_host;
  const dgx_import_request request{
      sizeof(dgx_import_request), log.c_str(), log.size(), "hello.log", nullptr, 0, 0, 0, 0, 0, 0};
  char message[256] = {};
  dgx_error error{sizeof(dgx_error), sizeof message, message};
  const dgx_status read = format.read(&format, reader_host.api(), &request, nullptr, &error);
  expect(read == DGX_OK && reader_host.rows.size() == 1, std::string("the reader emits one row: ") + message);
  if (!reader_host.rows.empty()) {
    const auto& row = reader_host.rows[0];
    expect(row.mode == DGX_RESULT_MEASURED && row.config.at("hello.elements") == "1000", "measured, in its keys");
    expect(row.metrics.at("time").first == 0.003e-3, "the median pass");
  }
  const std::string bad = "hello: elements=1000 time_ms=1\nhello: elements=2000 time_ms=2\n";
  const dgx_import_request two_sizes{
      sizeof(dgx_import_request), bad.c_str(), bad.size(), "bad.log", nullptr, 0, 0, 0, 0, 0, 0};
  expect(format.read(&format, reader_host.api(), &two_sizes, nullptr, &error) == DGX_ERR_INVALID_ARGUMENT &&
             std::string(message).find("bad.log:2: two array sizes") == 0,
         std::string("a log of two runs is refused naming the line: ") + message);

  std::printf("%s\n", failures == 0 ? "hello_test: all passed" : "hello_test: FAILED");
  return failures == 0 ? 0 : 1;
}
