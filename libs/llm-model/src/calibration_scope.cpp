#include "dgx/llm/calibration_scope.hpp"

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/flops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace dgx::llm {

namespace {

/// What the calibration rows cover, gathered once per process.
struct Coverage {
  std::set<std::string> systems;
  std::set<std::string> classes;                             ///< calibration_class(system, precision)
  std::set<std::pair<std::string, std::string>> frameworks;  ///< (framework, architecture)
  std::vector<double> dense_sizes;                           ///< total parameters of the calibrated models
  std::set<std::string> moe_models;                          ///< the mixture-of-experts models with published runs
  int min_seq = 0, max_seq = 0;
};

Coverage gather() {
  Coverage c;
  const auto rows = load_calibration();
  if (!rows) {
    return c;
  }
  for (const CalibrationRow& row : *rows) {
    c.systems.insert(row.system);
    c.classes.insert(calibration_class(row.system, row.train.precision));
    if (const auto system = find_system(row.system)) {
      c.frameworks.emplace(row.framework, system->architecture);
    }
    if (const auto model = find_model(row.model)) {
      c.dense_sizes.push_back(count_parameters(*model).total);
      if (model->moe()) {
        c.moe_models.insert(row.model);
      }
    }
    c.min_seq = c.min_seq == 0 ? row.train.seq_len : std::min(c.min_seq, row.train.seq_len);
    c.max_seq = std::max(c.max_seq, row.train.seq_len);
  }
  return c;
}

const Coverage& coverage() {
  static const Coverage c = gather();
  return c;
}

std::string billions(double parameters) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0fB", parameters / 1e9);
  return text;
}

/// The calibrated size nearest to `size` on a log scale, and how many times away it is.
std::pair<double, double> nearest_size(const std::vector<double>& sizes, double size) {
  double best = 0, ratio = INFINITY;
  for (const double s : sizes) {
    const double r = std::max(s, size) / std::min(s, size);
    if (r < ratio) {
      best = s;
      ratio = r;
    }
  }
  return {best, ratio};
}

void check_model(const ModelConfig& model, const Coverage& c, std::vector<std::string>& out) {
  if (const std::string kinds = uncalibrated_layer_kinds(model); !kinds.empty()) {
    out.push_back(model.name + " has layer kinds no calibration run has (" + kinds +
                  "): their ops are modelled from their algorithms, and the chunked scans run at the system's "
                  "attention efficiency, unverified");
  }
  if (model.moe() && !c.moe_models.contains(model.name)) {
    std::string calibrated;
    for (const std::string& name : c.moe_models) {
      calibrated += (calibrated.empty() ? "" : ", ") + name;
    }
    out.push_back(model.name +
                  " is a mixture-of-experts model without published runs: its router, expert all-to-all "
                  "and grouped GEMMs are calibrated only on other MoE models (" +
                  calibrated + ")");
  }
  const double size = count_parameters(model).total;
  const auto [nearest, ratio] = nearest_size(c.dense_sizes, size);
  if (ratio > kFarModelSizeRatio) {
    out.push_back(model.name + " (" + billions(size) +
                  " parameters) is far from every calibrated model size (nearest " + billions(nearest) + ")");
  }
}

}  // namespace

std::string uncalibrated_layer_kinds(const ModelConfig& model) {
  std::vector<std::string> kinds;
  const auto add = [&kinds](bool present, const char* name) {
    if (present && std::find(kinds.begin(), kinds.end(), name) == kinds.end()) {
      kinds.emplace_back(name);
    }
  };
  for (const LayerGroup& group : model.layer_mix()) {
    const ModelConfig layer = model.layer_view(group);
    add(layer.mixer == Mixer::mamba2, "Mamba-2");
    add(layer.mixer == Mixer::linear_attention, "linear attention");
    add(layer.mixer == Mixer::none, "MLP-only layers");
    add(layer.mlp_free, "mixer-only layers");
    add(layer.mixer == Mixer::attention && layer.attention_chunk > 0, "chunked attention");
    add(layer.mixer == Mixer::attention && layer.sparse_topk > 0, "DSA sparse attention");
    add(layer.mixer == Mixer::attention && layer.attention_output_gate, "attention output gates");
  }
  std::string out;
  for (const std::string& kind : kinds) {
    out += (out.empty() ? "" : ", ") + kind;
  }
  return out;
}

std::vector<std::string> outside_calibration(const ModelConfig& model, const SystemProfile& system, Precision precision,
                                             int seq_len) {
  const Coverage& c = coverage();
  std::vector<std::string> out;
  const std::string cls = calibration_class(system.name, precision);
  if (!c.systems.contains(system.name)) {
    out.push_back(system.name + " has no published run in the calibration sets: its efficiencies are those of the "
                                "calibrated systems of its architecture, unverified");
  } else if (!c.classes.contains(cls)) {
    out.push_back("no published run of " + system.name + " in " + std::string(to_string(precision)) + ": its " +
                  std::string(to_string(precision)) + " kernel efficiencies are unverified");
  }
  const std::string& framework = system.software.framework;
  if (!framework.empty() && !c.frameworks.contains({framework, system.architecture})) {
    out.push_back("framework " + framework + " has no published run on " + system.architecture +
                  " GPUs: its kernel efficiencies there are inherited, unverified");
  }
  check_model(model, c, out);
  if (seq_len < c.min_seq || seq_len > c.max_seq) {
    out.push_back("sequences of " + std::to_string(seq_len) + " tokens lie outside the calibrated " +
                  std::to_string(c.min_seq) + "-" + std::to_string(c.max_seq));
  }
  return out;
}

}  // namespace dgx::llm
