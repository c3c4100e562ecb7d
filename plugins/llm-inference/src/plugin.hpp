// The llm-inference plugin: serving a model, as a job of the LLM workload skeleton (libs/llm-workload: Workload,
// plugin_spec, the serving counterparts serve_*.hpp), and its spec, which the generated entry point exports. What is
// its own: the settings (settings.hpp), the serving modes and their notes (plugin.cpp, notes.cpp), its rows
// (rows.cpp), its measure mode (measure.hpp) and a second workload, llm-decode (decode_workload.hpp).
#pragma once

#include <string>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_explorer.hpp"
#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/workload/serve_assumptions.hpp"
#include "dgx/llm/workload/workload.hpp"
#include "measure.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

/// The name of the plugin, its serving workload and the presets' preset.workload.
inline constexpr const char* kWorkloadName = "llm-inference";

/// Which columns the terminal table shows.
enum class RowView { project, explore };

class Serving {
public:
  using Measure = ServeMeasure;

  /// Reads and checks the configuration and resolves its assumptions: a config error before anything runs.
  explicit Serving(const dgx::sdk::Host& host);

  [[nodiscard]] const InferenceSettings& settings() const { return settings_; }
  [[nodiscard]] const llm::workload::ServeAssumptions& assumptions() const { return assumptions_; }
  /// Projects `system` from now on, the assumptions resolved again for it (measure mode: the measured device's).
  void use_system(const std::string& system);

  // The modes (plugin.cpp).

  /// The projection of the configuration, or a dgx::sdk::InvalidArgument naming why it cannot run: an invalid
  /// layout, a length beyond the context, weights that do not fit, no memory left for a KV cache, a precision the
  /// system lacks, or a fleet that is not a whole number of replicas. `provider`: measured op times (measure mode).
  [[nodiscard]] llm::ServeProjection project_configuration(const llm::OpTimeProvider* provider = nullptr) const;
  /// serve.mode = disaggregated: prefill and decode workers (given, or rate matched within the fleet). Throws as
  /// project_configuration does, and when the workers exceed the fleet.
  [[nodiscard]] llm::ServeProjection project_disaggregated() const;
  /// dgxhost --emit DIR: hands the launch files of `projection` to the host, which writes them there, and notes them
  /// (throws the host's error when one cannot be written).
  /// `replicas` > 1: for a fleet of that many replicas (serve.fleet_rate).
  void emit_launch_files(const dgx::sdk::Host& host, const llm::ServeProjection& projection, int replicas = 1) const;
  /// Explore compares engines as training's compares frameworks: each other engine's pick under the same SLOs, its
  /// $/Mtok (or tokens/s per GPU without a price) against this run's, a tie when the difference is inside the
  /// engines' calibration bands. Empty without a pick.
  [[nodiscard]] std::string engines_note(const llm::ServeModel& model, const llm::ServeExploreResult& result) const;
  /// serve.fleet_rate: the fleet explore sized, in words.
  [[nodiscard]] std::string fleet_note(const llm::ServeExploreResult& result, const llm::ServeFleet& fleet) const;
  /// The space the settings describe: the precisions, the fleet as the largest replica, explore.concurrency, the
  /// lengths and engine limits of serve.*.
  [[nodiscard]] llm::ServeSpace explore_space() const;
  /// --mode project: one projected row of table "project", the assumptions before it and the latency, throughput,
  /// memory and utilisation breakdowns after it. Throws as project_configuration does.
  void project(const dgx::sdk::Host& host) const;
  /// --mode explore: the throughput-latency Pareto front (output tokens/s per GPU against tokens/s per user) and
  /// the recommendation, the cheapest configuration per million output tokens that meets the SLOs, as rows of table
  /// "explore". Throws dgx::sdk::InvalidArgument when no configuration is feasible, naming why.
  void explore(const dgx::sdk::Host& host) const;
  /// The notes after a projected row: latency, throughput, memory, utilisation, the SLO check and the definitions.
  void add_projection_notes(const dgx::sdk::Host& host, const llm::ServeProjection& projection) const;

  // Rows (rows.cpp).

  /// A row of `table` for one configuration: the keys it was evaluated with (precision a column, the rest JSON-only;
  /// the layout and load as fields), the provenance (model, system, calibration, price, peaks, TPOT definition,
  /// latency method, source) and the metrics named in params.hpp's help: ttft, tpot, e2e_latency (medians; .p99
  /// when simulated), output_tokens_per_s (replica), output_tokens_per_s_per_gpu, output_tokens_per_s_per_user,
  /// requests_per_s, mbu, mfu (%), kv_cache_tokens, max_concurrency, usd_per_million_output_tokens, and the
  /// iteration and memory breakdowns.
  [[nodiscard]] dgx::sdk::Row serve_row(const std::string& table, RowView view, const llm::ServeProjection& projection,
                                        dgx::sdk::ResultMode mode = dgx::sdk::ResultMode::projected) const;

  // Notes (notes.cpp).

  /// Model, system (and why this one), price (and why), the serving model and its accuracy; one line each.
  [[nodiscard]] std::string assumptions_note() const;
  /// The replicas, precisions, request lengths, load and engine limits of a projection.
  [[nodiscard]] std::string configuration_note(const llm::ServeProjection& projection) const;
  [[nodiscard]] std::string latency_note(const llm::ServeProjection& projection) const;
  [[nodiscard]] std::string throughput_note(const llm::ServeProjection& projection) const;
  [[nodiscard]] std::string memory_note(const llm::ServeProjection& projection) const;
  [[nodiscard]] std::string utilisation_note(const llm::ServeProjection& projection) const;
  /// "meets the SLOs (TTFT p99 143 ms <= 2.00 s, TPOT p99 58.2 ms > 50.0 ms: misses TPOT)".
  [[nodiscard]] std::string slo_text(const llm::ServeProjection& projection) const;
  /// How TTFT, TPOT, E2E, throughput, MBU, MFU and cost are defined (the benchmarks' conventions).
  [[nodiscard]] static std::string definitions_note();
  /// How far off each metric is expected to be, for `projection` (its mode, load, model) or for a sweep (nullptr).
  [[nodiscard]] std::string expected_error_note(const llm::ServeProjection* projection) const;
  /// That these are projections of a calibrated model, and how to measure instead.
  [[nodiscard]] std::string projection_note() const;
  /// Layouts, precisions, concurrency, request lengths, engine limits and SLOs of the sweep.
  [[nodiscard]] std::string sweep_note() const;
  /// What the table leaves out (the `shown` points are the front and the recommendation): how many dominated
  /// configurations, each precision with no row shown, and that explore.rows=all shows them.
  [[nodiscard]] std::string rows_note(const llm::ServeExploreResult& result,
                                      const std::vector<std::size_t>& shown) const;
  /// "what" failed: "llama3.1-70b on h100-sxm at TP2 PP1 in fp8".
  [[nodiscard]] std::string configuration_label() const;

private:
  InferenceSettings settings_;
  llm::workload::ServeAssumptions assumptions_;
};

/// How the row's latencies were obtained (steady state, closed- or open-loop simulation, disaggregated).
[[nodiscard]] std::string latency_method(const llm::ServeProjection& projection);

/// "offline (245 in flight)", "64", "512 (245 fit, the rest queue)", "2.00 req/s", "16 per decode worker".
[[nodiscard]] std::string load_label(const llm::ServeProjection& projection);

/// "4.80 TB/s HBM (h200-sxm)": the peak MBU is measured against.
[[nodiscard]] std::string mbu_peak_label(const llm::SystemProfile& system);

using InferenceWorkload = llm::workload::Workload<Serving>;

/// The plugin: its two workloads (llm-inference: measure, project and explore; llm-decode: measure) and the
/// embedded presets.
[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_inference
