#include "measured_row.hpp"

#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/support/printable.hpp"

namespace dgx::detail {

namespace {

const char* timing_description(dgx_timing timing) {
  switch (timing) {
  case DGX_TIMING_DEVICE_EVENTS: return "device events recorded by the plugin around the enqueued work";
  case DGX_TIMING_PLUGIN_WALL: return "plugin's wall clock around the timed region inside run()";
  default: return "host steady_clock around run() (synchronous)";
  }
}

const char* cache_description(std::int32_t state) {
  switch (state) {
  case 1: return "hot";
  case 2: return "cold (flushed before each sample)";
  default: return "n/a";
  }
}

}  // namespace

ResultRow case_row(const WorkloadInfo& workload, const dgx_case_desc& desc, const json::Object& row_config) {
  ResultRow row;
  row.workload = workload.name;
  row.plugin = workload.plugin->name;
  row.mode = ResultMode::measured;
  row.table = workload.name;
  row.label = printable(desc.label);
  row.config = row_config;
  for (std::uint32_t i = 0; i < desc.config_count; ++i) {  // measure_case checked the array
    const dgx_config_entry& e = detail::strided_element(desc.config, i);
    const std::string text = printable(e.value);
    auto value = parse_toml_value(text);
    row.config.set(e.key != nullptr ? printable(e.key) : "?", value ? value.value() : json::Value(text));
  }
  return row;
}

void add_timing(ResultRow& row, const RunnerSettings& settings, int world_size, const StoppingCriterion& criterion,
                const dgx_sample_result& result, bool in_json_only) {
  const Stats& stats = criterion.stats();
  for (const auto& [name, value] : {std::pair{"time.median", stats.median},
                                    {"time.mean", stats.mean},
                                    {"time.min", stats.min},
                                    {"time.max", stats.max},
                                    {"time.stdev", stats.stdev}}) {
    row.add_metric({name, value, "s", in_json_only, {}});
  }
  row.add_metric({"time.cv", stats.cv * 100.0, "%", in_json_only, {}});
  row.add_metric({"samples", static_cast<double>(stats.samples), "count", in_json_only, {}});
  row.add_field({"timing", timing_description(result.timing), true});
  row.add_field({"cache", cache_description(result.cache_state), true});
  row.add_field({"iterations_per_sample", std::to_string(settings.batch), true});
  row.add_field({"warmup", std::to_string(settings.warmup) + " samples", true});
  row.add_field({"stop", criterion.decision().reason, true});
  if (world_size > 1) {
    row.add_field({"ranks", std::to_string(world_size) + " (barrier per sample; slowest rank's time)", true});
  }
  row.sample_times = criterion.samples();
}

}  // namespace dgx::detail
