// The measured serving set (configs/baselines/serving-measured.csv, calibration-4; serving-measured.md beside it):
// end-to-end TTFT and TPOT of closed-loop benchmarks on deployed engines, aggregated and disaggregated, read into
// the serving model's configurations. A stack (model × system × engine) is the unit the cross-validation holds out.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_disaggregated.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

struct MeasuredServing {
  std::string id;       ///< the source's row id
  std::string engine;   ///< trtllm, vllm, sglang (the source's backend)
  std::string version;  ///< the engine release, empty when the source has none
  std::string checkpoint;
  std::string model;   ///< catalog name
  std::string system;  ///< catalog name
  bool disaggregated = false;
  /// Aggregated: the replica's configuration, concurrency the requests in flight (batch × attention-DP ranks).
  /// Disaggregated: the decode workers' configuration; concurrency over the whole deployment.
  ServeConfig config;
  ServeLayout prefill;                          ///< disaggregated: one prefill worker
  int prefill_workers = 0, decode_workers = 0;  ///< disaggregated; 0 where the source does not say
  /// The source's layout has attention TP inside attention DP (tp_size > 1 and attention_dp_size > 1), which the
  /// model's layouts do not have: it is served as attention DP over all the GPUs.
  bool approximate_layout = false;
  /// The data-source column states the concurrency (silicon_concurrency); 12 aggregated rows state none, and their
  /// batch size is not the load (their TTFT, up to 54 s, is a queue no batch explains): not for validation.
  bool concurrency_stated = true;
  double ttft_ms = 0, tpot_ms = 0;

  /// "deepseek-v3 b200 trtllm": what the cross-validation holds out together.
  [[nodiscard]] std::string stack() const { return model + " " + system + " " + engine; }
};

/// Reads the CSV: the source's header, one configuration per row; an error naming the file, line and column when a
/// value is missing or malformed, or the model, system or precision is not in the catalog.
[[nodiscard]] Expected<std::vector<MeasuredServing>> parse_serving_measured(std::string_view csv_text,
                                                                            std::string_view file);

/// The disaggregated row as the model projects it: decode workers at the row's concurrency split over them.
[[nodiscard]] DisaggConfig disaggregated_config(const MeasuredServing& row);

}  // namespace dgx::llm
