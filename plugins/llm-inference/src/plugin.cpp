#include "plugin.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "decode_workload.hpp"
#include "dgx/llm/serve_disaggregated.hpp"
#include "dgx/llm/workload/plugin_spec.hpp"
#include "dgx/llm/workload/serve_notes.hpp"
#include "dgx/log_import/formats.hpp"
#include "launch_files.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_inference {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;
using dgx::sdk::NotePlacement;

workload::ServeAssumptions resolve(const InferenceSettings& s) {
  return workload::resolve_serve_assumptions(s.model, s.system, s.provider, s.usd_per_gpu_hour);
}

}  // namespace

Serving::Serving(const dgx::sdk::Host& host) : settings_(read_settings(host)), assumptions_(resolve(settings_)) {
  default_to_checkpoint(settings_, assumptions_.model);
}

void Serving::use_system(const std::string& system) {
  settings_.system = system;
  assumptions_ = resolve(settings_);
}

llm::ServeProjection Serving::project_disaggregated() const {
  const llm::ServeModel model(assumptions_.model, assumptions_.system);
  const llm::DisaggConfig c{.decode = settings_.config,
                            .prefill = settings_.prefill_layout,
                            .prefill_workers = settings_.prefill_workers,
                            .decode_workers = settings_.decode_workers,
                            .max_gpus = settings_.gpus,
                            .ttft_slo = settings_.slo.ttft,
                            .poisson = settings_.config.open_loop()};
  auto projection = llm::project_disaggregated(model, c, assumptions_.price);
  if (!projection) {
    throw dgx::sdk::InvalidArgument(configuration_label() + " (disaggregated): " + projection.error().message);
  }
  if (projection->gpus() > settings_.gpus) {
    throw dgx::sdk::InvalidArgument(std::string(key::fleet_gpus) + " " + std::to_string(settings_.gpus) +
                                    " cannot hold " + std::to_string(projection->disaggregation->prefill_workers) +
                                    " prefill and " + std::to_string(projection->disaggregation->decode_workers) +
                                    " decode workers (" + std::to_string(projection->gpus()) + " GPUs)");
  }
  return std::move(projection).value();
}

llm::ServeProjection Serving::project_configuration(const llm::OpTimeProvider* provider) const {
  if (settings_.disaggregated && provider == nullptr) {
    return project_disaggregated();
  }
  const int per_replica = settings_.config.layout.gpus();
  if (settings_.gpus % per_replica != 0) {
    throw dgx::sdk::InvalidArgument(std::string(key::fleet_gpus) + " " + std::to_string(settings_.gpus) +
                                    " is not a whole number of replicas of " + std::to_string(per_replica) +
                                    " GPUs (TP x PP)");
  }
  const llm::ServeModel model(assumptions_.model, assumptions_.system, provider);
  auto projection = model.project(settings_.config, assumptions_.price);
  if (!projection) {
    throw dgx::sdk::InvalidArgument(configuration_label() + ": " + projection.error().message);
  }
  return std::move(projection).value();
}

void Serving::add_projection_notes(const dgx::sdk::Host& host, const llm::ServeProjection& p) const {
  host.note(NotePlacement::after, "Latency", latency_note(p));
  host.note(NotePlacement::after, "Throughput and cost", throughput_note(p));
  host.note(NotePlacement::after, "Memory per GPU", memory_note(p));
  host.note(NotePlacement::after, "Utilisation", utilisation_note(p));
  host.note(NotePlacement::after, "SLOs", "This configuration " + slo_text(p) + ".");
  host.note(NotePlacement::after, "Expected error", expected_error_note(&p));
  host.note(NotePlacement::after, "Definitions", definitions_note());
}

void Serving::project(const dgx::sdk::Host& host) const {
  const llm::ServeProjection p = project_configuration();
  host.note(NotePlacement::before, "Assumptions", assumptions_note());
  host.note(NotePlacement::before, "Configuration", configuration_note(p));
  host.emit(serve_row("project", RowView::project, p));
  add_projection_notes(host, p);
  host.note(NotePlacement::after, "Projection", projection_note());
  emit_launch_files(host, p);
}

void Serving::emit_launch_files(const dgx::sdk::Host& host, const llm::ServeProjection& p, int replicas) const {
  if (!host.output_files_requested()) {
    return;
  }
  const LaunchFiles files = launch_files(settings_, assumptions_, p, replicas);
  std::string listing;
  for (const auto& [name, text] : files.files) {
    host.write_output_file(name, text, launch_file_mode(name));  // the host writes them into --emit DIR
    listing += (listing.empty() ? "" : ", ") + name;
  }
  host.note(NotePlacement::after, "Launch files",
            "Written for " + llm::describe_serve_point(p, assumptions_.model.moe()) +
                " into the --emit folder: " + listing +
                ". Start the server with the first, then measure it with aiperf.sh (the same lengths, load and "
                "SLOs); dgxhost import reads AIPerf's export back, dgxhost verdict holds it against this projection.");
}

llm::ServeSpace Serving::explore_space() const {
  llm::ServeSpace space;
  space.base = settings_.config;
  space.precisions = settings_.precisions;
  space.auto_kv = !settings_.kv_precision;
  space.concurrency = settings_.explore_concurrency;
  space.max_gpus = settings_.gpus;
  space.disaggregated = settings_.explore_disaggregated;
  space.sweep_speculation = settings_.explore_speculative;
  return space;
}

void Serving::explore(const dgx::sdk::Host& host) const {
  const llm::ServeModel model(assumptions_.model, assumptions_.system);
  const double start = host.now();
  const auto explored = llm::explore_serving(model, explore_space(), settings_.slo, assumptions_.price);
  if (!explored) {
    const std::string& why = explored.error().message;
    const bool memory = why.find("GiB") != std::string::npos || why.find("does not fit") != std::string::npos;
    throw dgx::sdk::InvalidArgument(why + (memory ? " (more GPUs per replica: --set " + std::string(key::fleet_gpus) +
                                                        "=N, a narrower precision or a system with more HBM may fit)"
                                                  : ""));
  }
  const llm::ServeExploreResult& result = *explored;
  const double elapsed = host.now() - start;

  host.note(NotePlacement::before, "Assumptions", assumptions_note());
  host.note(NotePlacement::before, "Sweep", sweep_note());
  const std::vector<std::size_t> front = workload::front_by_user_speed(result);
  std::vector<std::size_t> shown = front;
  if (settings_.explore_all_rows) {
    shown.resize(result.points.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
      shown[i] = i;
    }
  } else if (result.recommended && !result.points[*result.recommended].pareto) {
    shown.push_back(*result.recommended);
  }
  for (const std::size_t i : shown) {
    const llm::ServePoint& p = result.points[i];
    dgx::sdk::Row row = serve_row("explore", RowView::explore, p.projection);
    row.field("pareto", p.pareto ? "*" : "").field("recommended", result.recommended == i ? "yes" : "");
    if (result.recommended == i) {
      row.field("pick", "pick", DGX_FIELD_HIDDEN);  // the chart's series of its own
    }
    host.emit(row);
  }
  host.note(NotePlacement::after, "Pareto front (tokens/s per GPU vs per user)",
            workload::serve_pareto_note(result, front, assumptions_.model.moe()));
  if (!settings_.explore_all_rows) {
    host.note(NotePlacement::after, "Rows", rows_note(result, shown));
  }
  host.note(NotePlacement::after, "Recommendation",
            workload::serve_recommendation_note(result, assumptions_.price.has_value()));
  if (!result.mode_verdict.empty()) {
    host.note(NotePlacement::after, "Aggregated or disaggregated", result.mode_verdict);
  }
  if (const std::string engines = engines_note(model, result); !engines.empty()) {
    host.note(NotePlacement::after, "Engines", engines);
  }
  if (const std::string dropped = workload::serve_dropped_note(result); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Definitions", definitions_note());
  host.note(NotePlacement::after, "Expected error", expected_error_note(nullptr));
  host.note(NotePlacement::after, "Projection",
            projection_note() + " This sweep projected " + text::grouped(static_cast<long long>(result.evaluated)) +
                " configurations in " + text::duration(elapsed) + ".");
  if (settings_.fleet_rate > 0) {
    const auto fleet = llm::size_fleet(result, settings_.fleet_rate, settings_.gpus);
    if (!fleet) {
      throw dgx::sdk::InvalidArgument(std::string(key::fleet_rate) + ": " + fleet.error().message + " (" +
                                      key::fleet_gpus + " " + std::to_string(settings_.gpus) + ")");
    }
    host.note(NotePlacement::after, "Fleet", fleet_note(result, *fleet));
    emit_launch_files(host, result.points[fleet->point].projection, fleet->replicas);
  } else if (result.recommended) {
    emit_launch_files(host, result.points[*result.recommended].projection);
  } else if (host.output_files_requested()) {
    host.note(NotePlacement::after, "Launch files", "None written: no configuration meets the SLOs (--emit).");
  }
}

std::string Serving::engines_note(const llm::ServeModel& model, const llm::ServeExploreResult& result) const {
  if (!result.recommended) {
    return {};
  }
  const llm::ServeProjection& ours = result.points[*result.recommended].projection;
  const bool priced = ours.usd_per_million_output_tokens.has_value();
  const auto value = [&](const llm::ServeProjection& p) {
    return priced ? p.usd_per_million_output_tokens.value_or(0) : p.output_tokens_per_s_per_gpu;
  };
  const auto band = [](const llm::ServeProjection& p) { return p.calibration ? p.calibration->band_tpot : 0.0; };
  const auto shown = [&](const llm::ServeProjection& p) {
    return priced ? "$" + text::fixed(value(p), 3) + "/Mtok" : text::fixed(value(p), 0) + " tok/s/GPU";
  };
  std::string out = std::string(llm::to_string(settings_.config.engine)) + " (this run): " + shown(ours) + " at " +
                    llm::describe_serve_point(ours, assumptions_.model.moe());
  for (const llm::ServeEngine engine : {llm::ServeEngine::trtllm, llm::ServeEngine::vllm, llm::ServeEngine::sglang}) {
    if (engine == settings_.config.engine) {
      continue;
    }
    llm::ServeSpace space = explore_space();
    space.base.engine = engine;
    space.base.engine_version.clear();
    const auto other = llm::explore_serving(model, space, settings_.slo, assumptions_.price);
    out += "; " + std::string(llm::to_string(engine)) + ": ";
    if (!other) {
      out += "nothing runs (" + other.error().message + ")";
      continue;
    }
    if (!other->recommended) {
      out += "no configuration meets the SLOs";
      continue;
    }
    const llm::ServeProjection& theirs = other->points[*other->recommended].projection;
    const double change = value(theirs) / value(ours) - 1;
    const bool tie = std::abs(change) <= std::max(band(ours), band(theirs));
    out += shown(theirs) + " at " + llm::describe_serve_point(theirs, assumptions_.model.moe()) + " (" +
           (change >= 0 ? "+" : "") + text::fixed(100 * change, 0) + "%";
    if (!ours.calibration && !theirs.calibration) {
      out += ": no engine calibration applies to offline points, so the engines project alike)";
    } else {
      out += std::string(tie ? ", within the engines' calibration bands: a tie" : "") + ")";
    }
  }
  return out + ". Each engine's latencies carry its calibration (configs/engines/); switching is worth it only "
               "beyond the bands.";
}

std::string Serving::fleet_note(const llm::ServeExploreResult& result, const llm::ServeFleet& fleet) const {
  const llm::ServeProjection& p = result.points[fleet.point].projection;
  std::string out = std::to_string(fleet.replicas) + " x " + llm::describe_serve_point(p, assumptions_.model.moe()) +
                    " = " + std::to_string(fleet.gpus) + " GPUs carry " + text::fixed(fleet.rate, 2) +
                    " requests/s within the SLOs (" + text::fixed(fleet.per_replica, 2) +
                    " requests/s per replica, the requests spread evenly over them), the fewest GPUs of the " +
                    std::to_string(result.points.size()) + " configurations explored";
  if (fleet.usd_per_hour) {
    out += "; $" + text::fixed(*fleet.usd_per_hour, 2) + " per hour";
  }
  return out + ". The launch files are for this fleet; AIPerf offers it the fleet's rate.";
}

dgx::sdk::PluginSpec make_plugin_spec() {
  dgx::sdk::PluginSpec spec = workload::plugin_spec<Serving>({
      .name = kWorkloadName,
      .description = "LLM serving: time to first token, time per output token, throughput per GPU and per user, "
                     "bandwidth utilisation and cost per million tokens, projected from a calibrated serving model or "
                     "measured on a GPU, and an explorer of GPUs per replica, precision and concurrency",
      .kind = dgx::sdk::Kind::inference,
      .summary = "Projects LLM serving (TTFT, TPOT, tokens/s per GPU and per user, MBU, $/M tokens) and explores "
                 "replica layout, precision and concurrency; --describe's help lines define every metric",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_NVFP4, DGX_PRECISION_MXFP8},
      .params = inference_params(),
      .can_measure = [](dgx::sdk::Host& host) { require_serve_probe(host); },
      .rows = workload::serving_declarations(),
  });
  spec.add_workload<DecodeWorkload>({
      .name = kDecodeWorkloadName,
      .kind = dgx::sdk::Kind::inference,
      .summary = "Measures a whole model's decode loop on this GPU (CUDA graphs, paged KV cache): TPOT, tokens/s and "
                 "MBU per batch size",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3},
      .params = decode_params(),
      .modes = {dgx::sdk::Mode::measure},
      .can_measure = [](dgx::sdk::Host&) { require_decode_runner(); },
      .metrics =
          {dgx::sdk::MetricSpec::lower("tpot", "s", "time per output token: one decode step").with_label("TPOT"),
           dgx::sdk::MetricSpec::higher("output_tokens_per_s", "tokens/s", "batch / TPOT").with_label("tok/s"),
           dgx::sdk::MetricSpec::higher("output_tokens_per_s_per_user", "tokens/s", "1 / TPOT")
               .with_label("tok/s/user"),
           dgx::sdk::MetricSpec::neutral("bytes_per_iteration", "B", "bytes one decode step reads"),
           dgx::sdk::MetricSpec::higher("mbu", "%", "bytes per step / TPOT / the HBM bandwidth").with_label("MBU %")},
  });
  // The serving benchmarks people already run (AIPerf, GenAI-Perf, vLLM, SGLang, trtllm-bench, MLPerf Inference).
  spec.formats = dgx::logs::serving_formats();
  return spec;
}

}  // namespace dgx::plugins::llm_inference
