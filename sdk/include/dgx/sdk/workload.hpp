// What a C++ plugin author implements: a Workload subclass, described by a WorkloadSpec (name, kind, parameter
// schema, modes, and what its rows mean: declarations.hpp) and registered in a PluginSpec (plugin.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <dgx/plugin.h>
#include <dgx/sdk/declarations.hpp>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/host.hpp>
#include <dgx/sdk/toml_literal.hpp>

namespace dgx::sdk {

enum class Kind : dgx_workload_kind {
  pretrain = DGX_KIND_PRETRAIN,
  finetune = DGX_KIND_FINETUNE,
  inference = DGX_KIND_INFERENCE,
  comm = DGX_KIND_COMM,
  micro = DGX_KIND_MICRO
};

enum class Timing : dgx_timing {
  host_wall = DGX_TIMING_HOST_WALL,
  device_events = DGX_TIMING_DEVICE_EVENTS,
  plugin_wall = DGX_TIMING_PLUGIN_WALL
};

enum class CacheState : std::int32_t { not_applicable = 0, hot = 1, cold = 2 };

/// One parameter of a workload's configuration schema. Build with the named constructors.
struct Param {
  std::string key;
  dgx_param_type type = DGX_PARAM_STRING;
  std::string default_value;  // TOML literal; empty: no default
  std::string help;
  std::string choices;  // '|'-separated, strings only
  std::string unit;
  std::uint32_t flags = 0;
  std::string alias;  // one letter: `-b 8` on the command line means --set key=8

  static Param boolean(std::string key, bool value, std::string help) {
    return {std::move(key), DGX_PARAM_BOOL, toml_literal(value), std::move(help), {}, {}, 0, {}};
  }
  static Param integer(std::string key, std::int64_t value, std::string help, std::string unit = {}) {
    return {std::move(key), DGX_PARAM_INT, toml_literal(value), std::move(help), {}, std::move(unit), 0, {}};
  }
  /// A size in bytes (unit "B"). Users may give it with a suffix, --set key=64K (K, M, G, T: powers of 1024, as
  /// nccl-tests reads them); --describe says so. Only keys in bytes take suffixes.
  static Param bytes(std::string key, std::int64_t value, std::string help) {
    return integer(std::move(key), value, std::move(help), "B");
  }
  /// A list of sizes in bytes; every element takes a suffix as in bytes().
  static Param byte_list(std::string key, const std::vector<std::int64_t>& value, std::string help) {
    return int_list(std::move(key), value, std::move(help), "B");
  }
  static Param floating(std::string key, double value, std::string help, std::string unit = {}) {
    return {std::move(key), DGX_PARAM_FLOAT, toml_literal(value), std::move(help), {}, std::move(unit), 0, {}};
  }
  static Param string(std::string key, const std::string& value, std::string help, std::string choices = {}) {
    return {std::move(key), DGX_PARAM_STRING, toml_literal(value), std::move(help), std::move(choices), {}, 0, {}};
  }
  static Param int_list(std::string key, const std::vector<std::int64_t>& value, std::string help,
                        std::string unit = {}) {
    return {std::move(key), DGX_PARAM_INT_LIST, toml_literal(value), std::move(help), {}, std::move(unit), 0, {}};
  }
  static Param float_list(std::string key, const std::vector<double>& value, std::string help, std::string unit = {}) {
    return {std::move(key), DGX_PARAM_FLOAT_LIST, toml_literal(value), std::move(help), {}, std::move(unit), 0, {}};
  }
  static Param string_list(std::string key, const std::vector<std::string>& value, std::string help,
                           std::string choices = {}) {
    return {std::move(key), DGX_PARAM_STRING_LIST, toml_literal(value), std::move(help), std::move(choices), {}, 0, {}};
  }
  /// A one-letter command-line alias, e.g. with_alias("b") for nccl-tests' -b.
  Param& with_alias(std::string letter) {
    alias = std::move(letter);
    return *this;
  }
  /// A parameter with no default: getters throw until a layer sets it; find_*() returns nullopt.
  Param& without_default() {
    default_value.clear();
    return *this;
  }
  /// The run fails with a config error unless a layer sets it.
  Param& required() {
    flags |= DGX_PARAM_REQUIRED;
    default_value.clear();
    return *this;
  }
};

/// One case of measure mode: a label and the config entries that distinguish it (e.g. a message size).
struct Case {
  std::string label{};
  std::vector<std::pair<std::string, std::string>> config{};  // key, TOML literal
  std::uint32_t flags = 0;                                    // DGX_CASE_* flags

  template <typename T> Case& set(std::string key, const T& value) {
    config.emplace_back(std::move(key), toml_literal(value));
    return *this;
  }
};

struct SampleRequest {
  std::uint32_t case_index = 0;
  std::uint64_t sample_index = 0;
  std::uint32_t iterations = 1;
  bool warmup = false;
  bool flush_cache = false;
};

struct SampleResult {
  Timing timing = Timing::host_wall;
  double seconds = -1.0;  // total over all iterations; required unless timing is host_wall
  CacheState cache = CacheState::not_applicable;
};

struct Stats {
  std::uint64_t samples = 0;
  double median = 0, mean = 0, min = 0, max = 0, stdev = 0, cv = 0;
};

/// Base class of a workload instance. One instance serves one run: the constructor reads and validates the
/// configuration (cheap), setup() prepares measure mode, run() is the timed body the host calls repeatedly.
class Workload {
public:
  Workload() = default;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  virtual ~Workload() = default;

  /// Untimed preparation for measure mode.
  virtual void setup() {}
  /// Number of cases measure mode sweeps.
  virtual std::size_t case_count() { return 1; }
  /// Untimed preparation of one case; returns what distinguishes it.
  virtual Case begin_case(std::size_t /*index*/) { return {}; }
  /// Runs request.iterations iterations back to back; synchronous, or reports its own timing in `result`. The host
  /// divides the time by request.iterations and, when it is above 1, checks during warm-up that the time grows
  /// with it: a run() that ignores it fails the run with a message naming the plugin.
  virtual void run(const SampleRequest& /*request*/, SampleResult& /*result*/) {
    throw Unsupported("this workload has no measure mode");
  }
  /// After a case's timed samples: correctness checks and derived metrics (Host::add_metric).
  virtual void end_case(std::size_t /*index*/, const Stats& /*stats*/) {}
  virtual void finalize() {}
  /// Project and explore modes: emit result rows through the host.
  virtual void project(Mode /*mode*/) { throw Unsupported("this workload has no project or explore mode"); }
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>(Host&)>;

struct WorkloadSpec {
  std::string name{};
  Kind kind = Kind::micro;
  std::string summary{};
  std::vector<dgx_precision> precisions{};
  std::vector<Param> params{};
  std::vector<Mode> modes = {Mode::measure};
  WorkloadFactory factory{};
  /// Optional: throws NoDevice or Unsupported when measure mode cannot run here with this configuration.
  std::function<void(Host&)> can_measure{};
  /// ABI 1.1, all optional (declarations.hpp): which way the rows' metrics are better, the config keys that identify
  /// a run for comparisons and history (the others are context), and the HTML report's charts.
  std::vector<MetricSpec> metrics{};
  std::vector<std::string> identity_keys{};
  std::vector<ChartSpec> charts{};
};

}  // namespace dgx::sdk
