// Plugin spin: a CPU workload of known duration. Each iteration busy-waits spin.us microseconds, so what dgxhost
// reports can be checked against the truth: the runner's statistics and stopping rules, the overhead of a launcher
// or of MPI ranks, a machine's timer. spin.fail_rank and spin.crash_rank inject the failures a multi-rank job must
// survive (one rank rejecting its configuration, one rank dying mid-run), to check that a cluster's launcher ends
// the whole job with the right exit code instead of hanging.
#include <dgx/sdk.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

namespace dgx::plugins::spin {

class Spin final : public sdk::Workload {
public:
  explicit Spin(sdk::Host& host)
      : host_(host), micros_(host.get_int("spin.us")), cases_(host.get_int("spin.cases")),
        crash_(host.get_int("spin.crash_rank") == host.ranks().rank) {
    // (cases x spin.us) x iterations must fit in 64-bit microseconds: at most about 4.2e6 s per iteration.
    constexpr std::int64_t kMaxMicros = std::int64_t{1} << 42;
    if (micros_ < 0 || micros_ > kMaxMicros) {
      throw sdk::InvalidArgument("spin.us must be in 0.." + std::to_string(kMaxMicros) + ", got " +
                                 std::to_string(micros_));
    }
    if (cases_ < 1 || cases_ > 64) {
      throw sdk::InvalidArgument("spin.cases must be in 1..64");
    }
    if (host.get_int("spin.fail_rank") == host.ranks().rank) {  // a configuration only one rank rejects
      throw sdk::InvalidArgument("spin.fail_rank: this rank refuses its configuration");
    }
  }

  std::size_t case_count() override { return static_cast<std::size_t>(cases_); }

  sdk::Case begin_case(std::size_t index) override {
    // Case i spins (i + 1) x spin.us, so a multi-case run has known, different times.
    current_ = micros_ * static_cast<std::int64_t>(index + 1);
    sdk::Case c;
    c.label = std::to_string(current_) + " us";
    if (cases_ > 1) {
      c.set("spin.case_us", current_);
    }
    return c;
  }

  void run(const sdk::SampleRequest& request, sdk::SampleResult& /*result*/) override {
    if (crash_ && request.sample_index == 2) {
      std::abort();  // a rank that dies in the middle of a run
    }
    // Saturated at ~30 years, so that the deadline below cannot overflow the clock's nanoseconds.
    const double total_us = std::min(static_cast<double>(current_) * request.iterations, 1e15);
    const auto duration = std::chrono::microseconds(static_cast<std::int64_t>(total_us));
    const auto until = std::chrono::steady_clock::now() + duration;
    // A long spin stops at Ctrl-C or at the host's limit on the sample (runner.max_time), as a well-behaved
    // plugin's run() should: DGX_ERR_CANCELLED tells the host the sample was cut short.
    for (std::uint32_t n = 0; std::chrono::steady_clock::now() < until; ++n) {
      if (n % 1024 == 0) {
        host_.throw_if_cancelled();
      }
    }
  }

private:
  const sdk::Host& host_;
  std::int64_t micros_;
  std::int64_t cases_;
  std::int64_t current_ = 0;
  bool crash_;
};

}  // namespace dgx::plugins::spin

namespace {

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec spec{.name = "spin",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "CPU workload of known duration: checks the runner, ranks and launchers"};
  spec.add_workload<dgx::plugins::spin::Spin>({
      .name = "spin",
      .kind = dgx::sdk::Kind::micro,
      .summary = "Busy-waits spin.us microseconds per iteration",
      .params = {dgx::sdk::Param::integer("spin.us", 1000, "busy-wait time per iteration", "us"),
                 dgx::sdk::Param::integer("spin.cases", 1, "number of cases; case i spins (i+1) x spin.us"),
                 dgx::sdk::Param::integer("spin.fail_rank", -1,
                                          "this rank rejects its configuration (checks a job's failure handling)"),
                 dgx::sdk::Param::integer(
                     "spin.crash_rank", -1,
                     "this rank aborts during its third sample (checks a job's failure handling)")},
      .identity_keys = {"spin.us", "spin.case_us"},  // its metrics are the host's timing (time.*, samples)
  });
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
