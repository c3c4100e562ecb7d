// The smallest complete dgx plugin: one workload with a parameter schema, a measure mode (the host times
// run()), a correctness check, a derived metric, a project mode that emits a labelled projection, and what its rows
// mean (which way its metrics are better, which keys identify a run, a chart), which dgxhost records with them.
//
// The workload sums an array of doubles, a memory-bound loop whose time says how fast this CPU streams memory.
#include <dgx/sdk.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
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
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
