// The smallest complete dgx plugin: one workload with a parameter schema, a measure mode (the host times
// run()), a correctness check, a derived metric, a project mode that emits a labelled projection, and what its rows
// mean (which way its metrics are better, which keys identify a run, a chart), which dgxhost records with them; and a
// format (ABI 1.2): the log of a stand-alone `hello` tool, which `dgxhost import` and `verdict` then read.
//
// The workload sums an array of doubles, a memory-bound loop whose time says how fast this CPU streams memory.
#include <dgx/sdk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

class Hello final : public dgx::sdk::Workload {
public:
  explicit Hello(dgx::sdk::Host& host)
      : host_(host), elements_(host.get_int("hello.elements")),
        assumed_bandwidth_(host.get_float("hello.assumed_bandwidth")) {
    // Validate in the constructor: the host reports an InvalidArgument as a config error, naming the key.
    if (elements_ < 1) {
      throw dgx::sdk::InvalidArgument("hello.elements must be at least 1, got " + std::to_string(elements_));
    }
    if (assumed_bandwidth_ <= 0) {
      throw dgx::sdk::InvalidArgument("hello.assumed_bandwidth must be positive");
    }
  }

  void setup() override {  // untimed
    data_.resize(static_cast<std::size_t>(elements_));
    std::iota(data_.begin(), data_.end(), 0.0);  // integers: the sum is exact in double up to 2^53
  }

  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& /*result*/) override {
    for (std::uint32_t i = 0; i < request.iterations; ++i) {
      sum_ = std::accumulate(data_.begin(), data_.end(), 0.0);
    }
  }  // the host times this call with its own clock (Timing::host_wall, the default)

  void end_case(std::size_t /*index*/, const dgx::sdk::Stats& stats) override {
    const double n = static_cast<double>(elements_);
    if (sum_ != n * (n - 1) / 2) {
      throw dgx::sdk::CheckFailed("sum is wrong: " + std::to_string(sum_));
    }
    host_.add_metric("bandwidth", bytes() / stats.median / 1e9, "GB/s");
  }

  void project(dgx::sdk::Mode /*mode*/) override {
    const double seconds = bytes() / (assumed_bandwidth_ * 1e9);
    host_.emit(dgx::sdk::Row(dgx::sdk::ResultMode::projected)
                   .config("hello.elements", elements_)
                   .metric("time", seconds, "s")
                   .metric("bandwidth", assumed_bandwidth_, "GB/s")
                   .field("source", "roofline: bytes / hello.assumed_bandwidth"));
  }

private:
  [[nodiscard]] double bytes() const { return static_cast<double>(elements_) * sizeof(double); }

  dgx::sdk::Host& host_;
  std::int64_t elements_;
  double assumed_bandwidth_;
  std::vector<double> data_;
  double sum_ = 0;
};

// The stand-alone tool's log, one line per timed pass: "hello: elements=4194304 time_ms=1.62". The probe scores a
// text by what only this tool prints; the reader turns it into a measured row of the hello workload, in its keys.
constexpr std::string_view kLinePrefix = "hello: elements=";

struct Pass {
  std::int64_t elements = 0;
  double seconds = 0;
  int line = 0;
};

std::optional<Pass> parse_pass(std::string_view line, int number) {
  if (line.substr(0, kLinePrefix.size()) != kLinePrefix) {
    return std::nullopt;
  }
  const std::string text(line.substr(kLinePrefix.size()));
  Pass p;
  double ms = 0;
  if (std::sscanf(text.c_str(), "%ld time_ms=%lf", &p.elements, &ms) != 2 || p.elements < 1 || !(ms > 0)) {
    return std::nullopt;
  }
  p.seconds = ms * 1e-3;
  p.line = number;
  return p;
}

std::vector<Pass> passes_of(std::string_view text) {
  std::vector<Pass> passes;
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    ++number;
    if (auto p = parse_pass(text.substr(0, end), number)) {
      passes.push_back(*p);
    }
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return passes;
}

void read_hello_log(dgx::sdk::Host& host, const dgx::sdk::ImportRequest& request, dgx::sdk::ImportSink& sink) {
  std::vector<Pass> passes;  // the lines one at a time: a long log is never held, only its passes
  while (const auto line = request.next_line()) {
    if (auto p = parse_pass(line->text, line->number)) {
      passes.push_back(*p);
    }
  }
  if (passes.empty()) {
    throw dgx::sdk::InvalidArgument(request.origin + ": no 'hello: elements=N time_ms=T' line");
  }
  for (const Pass& p : passes) {
    if (p.elements != passes.front().elements) {
      throw dgx::sdk::InvalidArgument(request.origin + ":" + std::to_string(p.line) +
                                      ": two array sizes in one log; import one run per file");
    }
  }
  std::vector<double> seconds;
  for (const Pass& p : passes) {
    seconds.push_back(p.seconds);
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double bandwidth = static_cast<double>(passes.front().elements) * sizeof(double) / median / 1e9;
  const std::string lines = std::to_string(passes.front().line) + "-" + std::to_string(passes.back().line);
  if (request.inspect) {  // what the file says by itself
    sink.reading({.tool = "hello-log",
                  .kind = "micro",
                  .workload = "hello",
                  .timing = "the tool's wall clock per pass",
                  .lines = lines,
                  .steady_state = "median of " + std::to_string(passes.size()) + " passes",
                  .values = {{"time", median, "s"}, {"bandwidth", bandwidth, "GB/s"}},
                  .printed = {{"hello.elements", std::to_string(passes.front().elements)}}});
    return;
  }
  host.emit(dgx::sdk::Row(dgx::sdk::ResultMode::measured)
                .workload("hello")
                .table("imported hello-log")
                .config("hello.elements", passes.front().elements)
                .metric("time", median, "s")
                .metric("bandwidth", bandwidth, "GB/s")
                .field("source", "imported: hello-log", DGX_FIELD_HIDDEN)
                .field("tool", "hello-log", DGX_FIELD_HIDDEN)
                .field("file", request.origin + ":" + lines)
                .field("timing", "the tool's wall clock per pass, median", DGX_FIELD_HIDDEN)
                .samples(seconds));
}

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec spec{.name = "hello",
                            .version = "1.0.0",
                            .vendor = "dgxhost examples",
                            .description = "Example plugin: streams an array of doubles through the CPU"};
  spec.add_workload<Hello>({
      .name = "hello",
      .kind = dgx::sdk::Kind::micro,
      .summary = "Sums an array of doubles: CPU memory bandwidth",
      .params = {dgx::sdk::Param::integer("hello.elements", 1 << 22, "number of doubles summed per iteration"),
                 dgx::sdk::Param::floating("hello.assumed_bandwidth", 20.0, "memory bandwidth the projection assumes",
                                           "GB/s")},
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project},
      // What the rows mean: compare and history judge bandwidth higher and time lower, a run is one array size (the
      // assumed bandwidth is context), and the HTML report draws the bandwidth per array size.
      .metrics = {dgx::sdk::MetricSpec::higher("bandwidth", "GB/s", "bytes summed / the median time"),
                  dgx::sdk::MetricSpec::lower("time", "s", "projected: bytes / hello.assumed_bandwidth")},
      .identity_keys = {"hello.elements"},
      .charts = {dgx::sdk::ChartSpec::bars("Bandwidth", "hello.elements", "bandwidth")
                     .with_caption("Measured, or projected from hello.assumed_bandwidth, as each row says.")},
  });
  spec.formats.push_back({.name = "hello-log",
                          .summary = "the stand-alone hello tool's log: 'hello: elements=N time_ms=T' per pass",
                          .probe = [](std::string_view text) { return passes_of(text).empty() ? 0 : 90; },
                          .read = read_hello_log});
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
