// Result rows of serving configurations, shared by project, explore and measure mode so that all carry the same
// config keys, metric names and provenance fields (docs/results-schema.md). What the terminal table shows is chosen
// with the hidden flags: JSON and CSV always carry everything.
#pragma once

#include <string>

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "dgx/llm/serve_model.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

/// Which columns the terminal table shows.
enum class RowView { project, explore };

/// A row of `table` for one configuration: the keys it was evaluated with (precision a column, the rest JSON-only;
/// the layout and load as fields), the provenance (model, system, calibration, price, peaks, TPOT definition,
/// latency method, source) and the metrics named in params.hpp's help: ttft, tpot, e2e_latency (medians; .p99 when
/// simulated), output_tokens_per_s (replica), output_tokens_per_s_per_gpu, output_tokens_per_s_per_user,
/// requests_per_s, mbu, mfu (%), kv_cache_tokens, max_concurrency, usd_per_million_output_tokens, and the
/// iteration and memory breakdowns.
[[nodiscard]] dgx::sdk::Row serve_row(const std::string& table, RowView view, const Assumptions& assumptions,
                                      const InferenceSettings& settings, const llm::ServeProjection& projection,
                                      dgx::sdk::ResultMode mode = dgx::sdk::ResultMode::projected);

/// "offline (245 in flight)", "64", "512 (245 fit, the rest queue)".
[[nodiscard]] std::string load_label(const llm::ServeProjection& projection);

/// "4.80 TB/s HBM (h200-sxm)": the peak MBU is measured against.
[[nodiscard]] std::string mbu_peak_label(const llm::SystemProfile& system);

}  // namespace dgx::plugins::llm_inference
