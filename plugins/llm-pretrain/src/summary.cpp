// The explore notes that read the table for the buyer: the headline trade-offs (scaling from the smallest GPU count,
// each precision against BF16, what the other global-batch rule gives, which peak MFU divides by), what the layout
// labels count, and the providers' prices for the recommended configuration.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/pipeline_split.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;

/// "+5.3%" or "-97%": whole percent from 10% on, else (and just short of 100%) one decimal.
std::string signed_percent(double fraction) {
  const double percent = 100 * fraction;
  const double magnitude = std::abs(percent);  // -99.6% stays -99.6%: "-100%" would read as no time at all
  const std::string digits = text::fixed(percent, magnitude >= 10 && (magnitude < 99.5 || magnitude >= 100) ? 0 : 1);
  return (percent >= 0 ? "+" : "") + digits + "%";
}

std::string upper(llm::Precision p) {
  std::string name(llm::to_string(p));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return name;
}

/// The points of `precision`, by GPU count.
std::vector<const llm::ExplorePoint*> of_precision(const llm::ExploreResult& r, llm::Precision precision) {
  std::vector<const llm::ExplorePoint*> out;
  for (const llm::ExplorePoint& p : r.points) {
    if (p.train.precision == precision) {
      out.push_back(&p);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto* x, const auto* y) { return x->gpus < y->gpus; });
  return out;
}

const llm::ExplorePoint* at(const llm::ExploreResult& r, int gpus, llm::Precision precision) {
  for (const llm::ExplorePoint& p : r.points) {
    if (p.gpus == gpus && p.train.precision == precision) {
      return &p;
    }
  }
  return nullptr;
}

/// "64 -> 2048 GPUs: -97% days for +5.3% cost, 94.9% scaling efficiency". Scaling efficiency: tokens/s per GPU at
/// the larger count over the smaller's (1 = perfectly linear).
std::string scaling_text(const llm::ExplorePoint& from, const llm::ExplorePoint& to) {
  return std::to_string(from.gpus) + " -> " + std::to_string(to.gpus) +
         " GPUs: " + signed_percent(to.days / from.days - 1) + " days for " + signed_percent(to.cost / from.cost - 1) +
         " cost, " + text::fixed(100 * to.tokens_per_s_per_gpu / from.tokens_per_s_per_gpu, 1) + "% scaling efficiency";
}

/// The other global-batch rule than the run's, equal to it at the smallest GPU count `gpus`.
llm::BatchRule other_rule(const llm::BatchRule& rule, int gpus) {
  if (rule.kind == llm::BatchRule::Kind::fixed) {
    return {.kind = llm::BatchRule::Kind::per_gpu, .value = std::max(1, rule.value / gpus)};
  }
  return {.kind = llm::BatchRule::Kind::fixed, .value = rule.value * gpus};
}

std::string rule_text(const llm::BatchRule& rule) {
  return rule.kind == llm::BatchRule::Kind::fixed
             ? "a fixed global batch of " + std::to_string(rule.value) + " sequences at every GPU count"
             : "weak scaling, " + std::to_string(rule.value) + " sequences per GPU";
}

std::string rule_setting(const llm::BatchRule& rule) {
  return rule.kind == llm::BatchRule::Kind::fixed
             ? std::string("--set ") + key::gbs_per_gpu + "=0 --set " + key::gbs + "=" + std::to_string(rule.value)
             : std::string("--set ") + key::gbs_per_gpu + "=" + std::to_string(rule.value);
}

}  // namespace

std::string Pretraining::summary_note(const dgx::sdk::Host& host, const llm::ExploreResult& r) const {
  const auto pick = workload::recommended_point(r);
  if (r.points.size() < 2 || !pick) {
    return {};
  }
  const llm::ExplorePoint& rec = r.points[*pick];
  const std::vector<const llm::ExplorePoint*> line = of_precision(r, rec.train.precision);
  std::vector<std::string> lines;
  const llm::ExplorePoint& first = *line.front();
  const llm::ExplorePoint& last = *line.back();
  if (line.size() > 1) {
    std::string scaling = "Scaling (" + std::string(llm::to_string(rec.train.precision)) + "): ";
    if (rec.gpus != first.gpus && rec.gpus != last.gpus) {
      scaling += scaling_text(first, rec) + " (to the recommendation); ";
    }
    lines.push_back(scaling + scaling_text(first, last) + (rec.gpus == last.gpus ? " (to the recommendation)" : "") +
                    ". Scaling efficiency: tokens/s per GPU against the smallest count's.");
  }
  for (const llm::Precision p : settings_.precisions) {
    const llm::ExplorePoint* bf16 = at(r, rec.gpus, llm::Precision::bf16);
    const llm::ExplorePoint* other = at(r, rec.gpus, p);
    if (p == llm::Precision::bf16 || bf16 == nullptr || other == nullptr) {
      continue;
    }
    lines.push_back(upper(p) + " vs BF16 at " + std::to_string(rec.gpus) +
                    " GPUs (the recommended count, each with its fastest layout): " +
                    signed_percent(other->tokens_per_s_per_gpu / bf16->tokens_per_s_per_gpu - 1) + " tokens/s/GPU, " +
                    signed_percent(other->cost / bf16->cost - 1) + (assumptions_.price ? " cost." : " GPU-hours."));
  }
  // The batch rule decides the scaling line: the other rule, from the same batch at the smallest count.
  const llm::ExploreSpace space = explore_space();
  const llm::BatchRule other = other_rule(space.batch, first.gpus);
  std::string batch =
      "Batch rule: this run uses " + rule_text(space.batch) + " (" +
      (space.batch.kind == llm::BatchRule::Kind::fixed ? std::string(key::gbs) + "; " + key::gbs_per_gpu + " = 0"
                                                       : std::string(key::gbs_per_gpu)) +
      ").";
  if (line.size() > 1) {
    llm::ExploreSpace alternative = space;
    alternative.gpu_counts = {first.gpus, last.gpus};
    alternative.precisions = {rec.train.precision};
    alternative.batch = other;
    llm::StepModel model(assumptions_.model, assumptions_.system);
    llm::ExploreOptions options;
    options.price = assumptions_.price;
    options.cancelled = [&host] { return host.cancelled(); };
    const auto result = llm::explore(model, alternative, options);
    host.throw_if_cancelled();
    const llm::ExplorePoint* a = result ? at(*result, first.gpus, rec.train.precision) : nullptr;
    const llm::ExplorePoint* b = result ? at(*result, last.gpus, rec.train.precision) : nullptr;
    batch += " Under " + rule_text(other) + " (" + rule_setting(other) + ", the same batch at " +
             std::to_string(first.gpus) + " GPUs) " +
             (a != nullptr && b != nullptr ? scaling_text(*a, *b)
                                           : "no layout fits at both " + std::to_string(first.gpus) + " and " +
                                                 std::to_string(last.gpus) + " GPUs") +
             ": " +
             (other.kind == llm::BatchRule::Kind::per_gpu
                  ? "the batch grows with the GPUs, so each GPU keeps its work and efficiency stays high, but the "
                    "larger batch changes the optimization (more tokens per step)."
                  : "the batch stays small at large counts, so each GPU gets less work and efficiency falls.");
  }
  lines.push_back(batch);
  // Every number above is a projection: say so, and how far off its rows are expected to be.
  double low = 1e300, high = 0;
  for (const llm::ExplorePoint& p : r.points) {
    const double width =
        workload::projection_band(assumptions_.model, assumptions_.system, p.train.precision, p.gpus).width;
    low = std::min(low, width);
    high = std::max(high, width);
  }
  lines.insert(lines.begin(), "Projected (" + std::string(llm::constants::kModelVersion) +
                                  "; ratios of projected rows, each within its band: ±" + text::fixed(100 * low, 1) +
                                  "% to ±" + text::fixed(100 * high, 1) + "% here):");
  lines.push_back("MFU divides each row's model FLOP/s per GPU by the dense peak of the row's own precision (" +
                  assumptions_.system.name + ": " + workload::peaks_text(assumptions_.system) +
                  "), so an FP8 row reads a lower MFU while it trains faster; the TFLOP/s/GPU column compares "
                  "precisions directly.");
  return text::join(lines, "\n");
}

std::string Pretraining::layout_note(const llm::ExploreResult& r) const {
  const llm::ModelConfig& m = assumptions_.model;
  std::set<std::tuple<int, int, int, int, int>> seen;  // pp, vp, split, first, last
  std::vector<std::string> examples;
  for (const llm::ExplorePoint& p : r.points) {
    const llm::StageLayers& s = p.layout.stages;
    const int pp = p.train.layout.pp;
    const int vp = p.train.layout.vp;
    if (s.split == llm::PipelineSplit::even || pp == 1 ||
        !seen.insert({pp, vp, static_cast<int>(s.split), s.first, s.last}).second) {
      continue;
    }
    const std::string chunks = std::to_string(pp) + " x " + std::to_string(vp);
    if (s.split == llm::PipelineSplit::embedding_loss) {
      examples.push_back("PP" + std::to_string(pp) + " VP" + std::to_string(vp) + ": " + std::to_string(m.layers) +
                         " layers + the embedding + the loss = " + std::to_string(m.layers + 2) + " over " + chunks +
                         " chunks, " + text::fixed(static_cast<double>(m.layers + 2) / (pp * vp), 0) +
                         " each (embedding-loss split: Megatron's account_for_embedding_in_pipeline_split and "
                         "account_for_loss_in_pipeline_split)");
    } else {
      examples.push_back("PP" + std::to_string(pp) + " VP" + std::to_string(vp) + ": " + std::to_string(m.layers) +
                         " layers as " + std::to_string(s.first) + " on the first stage, " + std::to_string(s.middle) +
                         " on each middle one, " + std::to_string(s.last) + " on the last (" +
                         std::string(llm::to_string(s.split)) + " split)");
    }
  }
  if (examples.empty() && !m.moe()) {
    return {};
  }
  std::string out =
      "TPn PPn CPn: GPUs per tensor-, pipeline- and context-parallel group; DP = GPUs / (TP x PP x CP). "
      "VPn: virtual pipeline chunks per stage (interleaved 1F1B); VP1 is one chunk per stage, plain "
      "1F1B. The " +
      std::to_string(m.layers) +
      " decoder layers are split over PP x VP chunks: evenly when they divide, else the embedding and the "
      "loss count as a layer each, or the first and last stage take fewer (parallel.pipeline_split). "
      "MBSn: micro-batch of n sequences; RC-sel, RC-full: selective or full activation recompute; "
      "OFFn: the activations of n decoder layers per stage offloaded to host memory.";
  if (m.moe()) {
    out += " EPn (mixture of experts): expert-parallel GPUs, folded over TP x CP x DP (Megatron's MoE parallel "
           "folding), so EP does not multiply the GPU count.";
  }
  for (const std::string& e : examples) {
    out += "\n" + e + ".";
  }
  return out;
}

std::string provider_note(const std::vector<SeriesRun>& series, const LeadResult& lead, std::size_t release) {
  const auto pick = workload::recommended_point(lead.result);
  if (!pick) {
    return "No recommended configuration to compare the providers on.";
  }
  const llm::ExplorePoint& job = lead.result.points[*pick];
  const workload::Assumptions& chosen = series[lead.series[*pick]].assumptions;
  struct Quote {
    const workload::Assumptions* assumptions;
    const llm::ExplorePoint* point;
  };
  std::vector<Quote> quotes;
  for (const SeriesRun& run : series) {
    if (run.release != release) {
      continue;
    }
    for (const llm::ExplorePoint& p : run.result.points) {
      if (p.gpus == job.gpus && p.train.precision == job.train.precision) {
        quotes.push_back({&run.assumptions, &p});
      }
    }
  }
  std::stable_sort(quotes.begin(), quotes.end(),
                   [](const Quote& x, const Quote& y) { return x.point->cost < y.point->cost; });
  std::string out = "Projected: the recommended configuration (" + std::to_string(job.gpus) + " GPUs " +
                    std::string(llm::to_string(job.train.precision)) + ", " +
                    workload::layout_label(job.train, chosen.model.moe()) + ": " +
                    text::fixed(job.days, job.days < 10 ? 2 : 1) +
                    " days; a price changes the cost, not the layout or the days) at each provider's price, cheapest "
                    "first:";
  for (const Quote& q : quotes) {
    const double usd_per_hour = q.assumptions->price ? q.assumptions->price->usd_per_gpu_hour : 0;
    out += "\n" + q.assumptions->provider + " $" + text::fixed(usd_per_hour, 2) +
           "/GPU-h: " + workload::cost_text(*q.point, *q.assumptions) +
           (q.assumptions == &chosen ? " (recommended)" : " (" + signed_percent(q.point->cost / job.cost - 1) + ")");
  }
  return out;
}

}  // namespace dgx::plugins::llm_pretrain
