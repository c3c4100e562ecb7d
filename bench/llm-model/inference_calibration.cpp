// bench_inference_calibration: projects every row of configs/baselines/inference.toml (offline serving throughput)
// and prints published value, projection and error per row, then mean / max absolute percentage error.
// --breakdown also prints each row's steady state: requests in flight, decoding batch, prompt tokens per iteration,
// the iteration's time split, MBU and the KV cache.
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_calibration.hpp"
#include "dgx/llm/serve_model.hpp"

#include <cstdio>
#include <string_view>

namespace {

using namespace dgx::llm;

void print_breakdown(const ServeCalibrationRow& row) {
  auto model = find_model(row.model);
  auto system = find_system(row.system);
  if (!model || !system) {
    return;
  }
  const ServeModel serve(*model, *system);
  const auto p = serve.project(row.config);
  if (!p) {
    return;
  }
  const StepCost& d = p->decode_step;
  const StepCost& c = p->chunk_step;
  std::printf("      %d in flight (KV %.0fk tokens), %.1f decoding, %.0f prompt tokens/iteration; TPOT %.1f ms, "
              "TTFT %.0f ms; decode iteration %.1f ms = compute %.1f + tp %.1f + pp %.1f + overhead %.1f; "
              "chunk iteration %.1f ms; MBU %.0f%%, prefill MFU %.0f%%\n",
              p->in_flight, p->capacity.kv_tokens / 1e3, p->decode_batch, p->prefill_tokens_per_iter,
              1e3 * p->tpot.median, 1e3 * p->ttft.median, 1e3 * d.seconds, 1e3 * d.compute, 1e3 * d.tp_comm,
              1e3 * d.pp_comm, 1e3 * d.overhead, 1e3 * c.seconds, 100 * p->mbu, 100 * p->mfu);
}

}  // namespace

int main(int argc, char** argv) {
  const bool breakdown = argc > 1 && std::string_view(argv[1]) == "--breakdown";
  const auto rows = load_serve_calibration();
  if (!rows) {
    std::fprintf(stderr, "bench_inference_calibration: %s\n", rows.error().message.c_str());
    return 1;
  }
  const auto outcomes = run_serve_calibration(*rows);
  std::printf("Serving calibration: projected (dgx-llm-serve, roofline) vs published output tokens/s of the replica "
              "(configs/baselines/inference.toml)\n\n");
  std::printf("%-46s %12s %12s %8s\n", "row", "published", "projected", "error");
  for (const ServeCalibrationOutcome& o : outcomes) {
    if (!o.failure.empty()) {
      std::printf("%-46s %12.6g %12s  FAILED: %s\n", o.row.label.c_str(), o.row.published, "-", o.failure.c_str());
      continue;
    }
    std::printf("%-46s %12.0f %12.0f %+7.1f%%\n", o.row.label.c_str(), o.row.published, o.projected, 100 * o.error);
    if (breakdown) {
      print_breakdown(o.row);
    }
  }
  std::printf("\n%-8s %5s %7s %15s %14s\n", "section", "rows", "failed", "mean |error|", "max |error|");
  bool failed = false;
  for (const ErrorStats& s : serve_error_stats(outcomes)) {
    std::printf("%-8s %5d %7d %14.2f%% %13.2f%%\n", s.section.c_str(), s.rows, s.failed, 100 * s.mean_abs,
                100 * s.max_abs);
    failed = failed || s.failed > 0;
  }
  return failed ? 1 : 0;
}
