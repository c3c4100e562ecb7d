// bench_explore_speed: how fast the explorers evaluate configurations. Sweeps the whole Llama 3.1 70B training
// space on H100 (GPU counts 8..16384, TP 1-8, PP 1-16, CP 1-8, every valid VP, MBS 1-8, bf16 and fp8, all
// recompute modes) with a fresh StepModel per repetition (so per-shape op timing is included), and the serving
// sweep `dgxhost --plugin llm-inference --mode explore` runs by default (70B on 8 H100s, bf16 and fp8, every TP, PP
// and concurrency), on one thread, and prints configurations evaluated, time and configurations per second
// (median of the repetitions). Issue 13 asks for the serving sweep in under a second, issue 27 for the full serving
// explore with disaggregated deployments (70B, up to 64 GPUs, bf16 and fp8, 8000/1000 under SLOs) in under two: the
// last column says whether the median is.
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/serve_explorer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

using namespace dgx::llm;

struct Case {
  const char* name;
  ExploreSpace space;
};

struct Timing {
  std::uint64_t evaluated = 0;
  std::uint64_t feasible = 0;
  std::size_t points = 0;
  double seconds = 0;
};

Timing run_once(const ModelConfig& model, const SystemProfile& system, const ExploreSpace& space) {
  const auto start = std::chrono::steady_clock::now();
  StepModel step_model(model, system);
  const auto result = explore(step_model, space);
  const auto stop = std::chrono::steady_clock::now();
  Timing t;
  t.seconds = std::chrono::duration<double>(stop - start).count();
  if (result) {
    t.evaluated = result->evaluated;
    t.feasible = result->feasible;
    t.points = result->points.size();
  }
  return t;
}

Timing run_serving_once(const ModelConfig& model, const SystemProfile& system, const ServeSpace& space) {
  const auto start = std::chrono::steady_clock::now();
  const ServeModel serve_model(model, system);
  const auto result = explore_serving(serve_model, space, ServeSlo{.ttft = 2.0, .tpot = 0.05}, std::nullopt);
  const auto stop = std::chrono::steady_clock::now();
  Timing t;
  t.seconds = std::chrono::duration<double>(stop - start).count();
  if (result) {
    t.evaluated = result->evaluated;
    t.points = result->points.size();
    t.feasible = result->points.size();
  }
  return t;
}

template <typename Run> Timing median_of(int repetitions, Run run) {
  std::vector<Timing> runs;
  runs.reserve(static_cast<std::size_t>(repetitions));
  for (int i = 0; i < repetitions; ++i) {
    runs.push_back(run());
  }
  std::sort(runs.begin(), runs.end(), [](const Timing& a, const Timing& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

void print_row(const char* name, const Timing& t, const char* target) {
  std::printf("%-42s %12llu %10llu %7zu %10.3f %14.0f  %s\n", name, static_cast<unsigned long long>(t.evaluated),
              static_cast<unsigned long long>(t.feasible), t.points, t.seconds,
              static_cast<double>(t.evaluated) / t.seconds, target);
}

}  // namespace

int main() {
  constexpr int kRepetitions = 5;
  const auto model = find_model("llama3.1-70b");
  const auto system = find_system("h100-sxm");
  if (!model || !system) {
    std::fprintf(stderr, "bench_explore_speed: %s\n", (!model ? model.error() : system.error()).message.c_str());
    return 1;
  }
  ExploreSpace full;
  full.gpus_min = 8;
  full.gpus_max = 16384;
  full.precisions = {Precision::bf16, Precision::fp8};
  full.batch = BatchRule{.kind = BatchRule::Kind::per_gpu, .value = 2};
  ExploreSpace preset = full;
  preset.gpus_min = 64;
  preset.batch = BatchRule{.kind = BatchRule::Kind::fixed, .value = 1024};

  const std::vector<Case> cases = {{"llama3.1-70b full space, gbs = 2 x GPUs", full},
                                   {"llama3.1-70b preset explore, gbs 1024", preset}};
  ServeSpace serving;
  serving.base.isl = 1000;
  serving.base.osl = 1000;
  serving.base.precision = Precision::fp8;
  serving.base.kv_precision = Precision::fp8;
  serving.precisions = {Precision::bf16, Precision::fp8};
  serving.auto_kv = true;
  serving.max_gpus = 8;

  std::printf("Explorer speed (one thread, fresh model per run, median of %d runs)\n\n", kRepetitions);
  std::printf("%-42s %12s %10s %7s %10s %14s  %s\n", "case", "evaluated", "feasible", "points", "time s", "configs/s",
              "target");
  for (const Case& c : cases) {
    print_row(c.name, median_of(kRepetitions, [&] { return run_once(*model, *system, c.space); }), "");
  }
  const Timing serve = median_of(kRepetitions, [&] { return run_serving_once(*model, *system, serving); });
  print_row("llama3.1-70b serving sweep, 8 GPUs, 1k/1k", serve, serve.seconds < 1.0 ? "< 1 s: met" : "< 1 s: MISSED");
  ServeSpace full_serving = serving;
  full_serving.base.isl = 8000;
  full_serving.max_gpus = 64;
  full_serving.disaggregated = true;
  const Timing disaggregated = median_of(kRepetitions, [&] { return run_serving_once(*model, *system, full_serving); });
  print_row("llama3.1-70b serving + disaggregated, 64 GPUs", disaggregated,
            disaggregated.seconds < 2.0 ? "< 2 s: met" : "< 2 s: MISSED");
  return 0;
}
