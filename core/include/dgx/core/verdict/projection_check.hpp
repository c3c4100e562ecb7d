// `dgxhost verdict`: a measured or imported row held against the calibrated projection of exactly its
// configuration (same model, system, framework release, precision, layout, batch), within the projection's own
// accuracy band. Below the band the run is slower than this configuration should run; inside it, it runs as the
// model expects; above it, faster (the model may be pessimistic there). For a slow run, where the time likely goes
// (the projection's breakdown beside what the run printed) and the dgxhost measurements that would settle it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/quantity.hpp"

namespace dgx {

enum class ProjectionOutcome { slower, as_projected, faster };
std::string_view to_string(ProjectionOutcome outcome);  // "slower", "as projected", "faster"

struct ProjectionJudgement {
  std::string metric;  // the metric both rows have: tokens_per_s_per_gpu, step_time, output_tokens_per_s_per_gpu, ...
  std::string unit;    // the measured row's; `projected` is converted to it
  double measured = 0;
  double projected = 0;
  double band = 0;   // the projection's expected error as a fraction (0.073 for ±7.3%)
  double ratio = 0;  // measured against projected, above 1 faster (goodness_ratio)
  Better better = Better::none;
  ProjectionOutcome outcome = ProjectionOutcome::as_projected;
  /// "8.2% below the projection (band ±2.6%): slower than this configuration should run".
  [[nodiscard]] std::string text() const;
};

/// The first metric of the judged ones (per-GPU throughput first, then step time or latency) that both rows carry
/// in convertible units, judged with the projected row's accuracy_band; nullopt when they share none or the
/// projection carries no band.
std::optional<ProjectionJudgement> judge_against_projection(const ResultRow& measured, const ResultRow& projected);

/// Where the time of a training step or a decode iteration likely goes: the projection's breakdown (GEMMs and
/// attention, TP/CP/EP/DP/PP communication, pipeline bubble, optimizer, stragglers; for serving the decode
/// iteration's parts), each with its share, beside what the run printed (step time, TFLOP/s, MFU), and the gap.
/// Lines of text; empty when the projection has no breakdown.
std::vector<std::string> where_time_goes(const ResultRow& measured, const ResultRow& projected);

/// The dgxhost measurements that would settle where a slow run loses its time, largest projected part first
/// (the GEMMs at the run's precision, one layer of its model, the TP all-reduce inside a node, the data-parallel
/// reduce-scatter across nodes, the expert all-to-all, and the platform check of each node).
std::vector<std::string> settling_measurements(const ResultRow& measured, const ResultRow& projected);

/// The projection of one measured row's configuration, or why there is none ("llm-pretrain: invalid
/// configuration: ...", "the comm workloads only measure: no model of a single collective").
struct Projection {
  std::optional<ResultRow> row;
  std::string none;     // why there is no projection, when `row` is empty
  std::string command;  // the dgxhost command that projects it, for the user to rerun
};

/// The layout and batch keys the projection resolved and `row` does not state (the run's log did not print them:
/// framework, parallel.ep, parallel.fsdp, ...), set on `row` (kept out of its table) and named in its `assumed`
/// field, so that the reference match and the reader see what the projection assumed. The keys it fills.
std::vector<std::string> fill_assumed(ResultRow& row, const ResultRow& projected);

struct ProjectionCounts {
  int as_projected = 0;
  int slower = 0;
  int faster = 0;
  int none = 0;
};

/// Holds the measured rows of `report` (in order: `projections[i]` belongs to the i-th row of mode measured) against
/// their projections: inserts each projected row before the row it judges (same table, the row's config keys),
/// adds ratio_to_projection, the band and `projection` / `verdict.projection` fields, and a note "Against the
/// projection" with, for each slower row, where the time likely goes and the measurements that would settle it.
/// A slower row makes the report exit 5 (unless it already failed).
ProjectionCounts apply_projections(Report& report, const std::vector<Projection>& projections);

}  // namespace dgx
