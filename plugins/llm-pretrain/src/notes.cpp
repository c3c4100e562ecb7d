#include "notes.hpp"

#include <utility>

#include "calibration_summary.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/framework.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/system_catalog.hpp"
#include "format.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

std::string model_line(const PretrainSettings& s, const Assumptions& a) {
  const llm::ModelConfig& m = a.model;
  const llm::ParameterCount params = llm::count_parameters(m);
  std::string line = "Model: " + m.display + " (" + m.name + "): " + std::to_string(m.layers) + " layers, hidden " +
                     std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads / " +
                     std::to_string(m.kv_groups) + " KV groups, " + si_count(params.total) + " parameters";
  if (m.moe()) {
    line += " (" + si_count(params.active) + " active: " + std::to_string(m.top_k) + " of " +
            std::to_string(m.experts) + " experts)";
  }
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : m.seq_len;
  return line + "; sequences of " + std::to_string(seq) + " tokens, " + si_count(s.train.tokens) + " tokens to train.";
}

std::string system_line(const PretrainSettings& s, const Assumptions& a) {
  const llm::SystemProfile& sys = a.system;
  std::string peaks = fixed(sys.peak_bf16_tflops, 0) + " TFLOP/s dense BF16";
  if (sys.peak_fp8_tflops > 0) {
    peaks += ", " + fixed(sys.peak_fp8_tflops, 0) + " FP8";
  }
  if (sys.peak_fp4_tflops > 0) {
    peaks += ", " + fixed(sys.peak_fp4_tflops, 0) + " FP4";
  }
  std::vector<std::string> others;
  for (const std::string& name : llm::system_names()) {
    if (name != sys.name) {
      others.push_back(name);
    }
  }
  return "System: " + sys.name + ", " + sys.display + "; " +
         (s.system_configured ? "the configuration names it" : "the workload's default") +
         ". A projection for that system, not for this machine's GPUs: " + peaks + " per GPU, " + gib(sys.hbm_bytes()) +
         " HBM at " + fixed(sys.hbm_tb_s, 2) + " TB/s, NVLink domain of " + std::to_string(sys.nvlink_domain) +
         " GPUs, " + fixed(sys.nic_gb_s, 0) + " GB/s scale-out per GPU. Other systems: --set system=NAME (" +
         join(others) + ").";
}

std::string price_line(const Assumptions& a) {
  std::string line = "Price: " + a.price_reason + ".";
  if (!a.providers.empty()) {
    line += " Other prices: --set cost.provider=NAME (" + join(a.providers) + ") or --set " +
            std::string(key::usd_per_gpu_hour) + "=USD.";
  }
  return line;
}

std::string framework_line(const PretrainSettings& s, const Assumptions& a) {
  std::vector<std::string> others;
  for (const std::string& name : llm::framework_names()) {
    if (name != a.framework.name) {
      others.push_back(name);
    }
  }
  return "Framework: " + a.framework.name + ", " + a.framework.display + " (released " + a.framework.released + "); " +
         (s.frameworks.empty() ? "the newest release profile" : "the configuration names it") +
         ": its kernel efficiencies and software behaviour, fitted to its published runs (configs/frameworks/" +
         a.framework.name + ".toml). Other releases: --set " + key::framework + "=NAME, or a list to compare them (" +
         join(others) + ").";
}

std::string accuracy_line(const PretrainSettings& s, const Assumptions& a) {
  std::vector<std::string> classes;
  for (const llm::Precision p : s.precisions) {
    classes.push_back(class_accuracy_text(a.system, p));
  }
  return "Performance model: " + std::string(llm::constants::kModelVersion) +
         ", per-op rooflines of the system profile with calibrated efficiencies; accuracy on published runs: " +
         a.calibration + "; for this system: " + join(classes) + ".";
}

}  // namespace

std::string assumptions_note(const PretrainSettings& settings, const Assumptions& assumptions) {
  return model_line(settings, assumptions) + "\n" + system_line(settings, assumptions) + "\n" +
         framework_line(settings, assumptions) + "\n" + price_line(assumptions) + "\n" +
         accuracy_line(settings, assumptions);
}

std::string scope_note(const PretrainSettings& settings, const Assumptions& assumptions) {
  const int seq = settings.train.seq_len > 0 ? settings.train.seq_len : assumptions.model.seq_len;
  const std::vector<std::string> reasons =
      calibration_scope(assumptions.model, assumptions.system, settings.precisions, seq);
  std::string out;
  for (const std::string& reason : reasons) {
    out += (out.empty() ? "" : "\n") + reason + ".";
  }
  return out.empty() ? out : out + "\nThe stated accuracy was measured on calibrated runs; expect larger errors here.";
}

std::string projection_note(const Assumptions& assumptions) {
  return std::string("These numbers are projections of ") + llm::constants::kModelVersion + " for " +
         assumptions.system.name +
         ", not measurements on this machine (every row says mode projected; JSON carries the provenance). "
         "To measure instead, run the same command on a GPU machine: it measures one layer of the model at the "
         "configuration's per-rank shapes and projects the cluster from the measured op times (rows labelled "
         "measured-calibrated; --mode measure insists on it). dgxhost --plugin gemm and --plugin llm-layer time "
         "the GEMMs and the layer on their own.";
}

std::string breakdown_text(const llm::StepBreakdown& b) {
  const std::pair<const char*, double> parts[] = {
      {"compute", b.compute}, {"TP", b.tp_comm},          {"CP", b.cp_comm},
      {"EP", b.ep_comm},      {"PP", b.pp_comm},          {"bubble", b.bubble},
      {"DP", b.dp_comm},      {"optimizer", b.optimizer}, {"stragglers", b.stragglers},
      {"offload", b.offload}};
  std::string out = duration(b.total()) + " =";
  bool first = true;
  for (const auto& [name, seconds] : parts) {
    if (seconds <= 0) {
      continue;
    }
    out += std::string(first ? " " : " + ") + name + " " + duration(seconds);
    first = false;
  }
  return out;
}

std::string memory_text(const llm::MemoryBreakdown& m) {
  const auto g = [](double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 1); };
  std::string out = gib(m.total()) + " of " + gib(m.capacity) + ": weights " + g(m.weights) + ", gradients " +
                    g(m.gradients) + ", optimizer states " + g(m.optimizer);
  if (m.fp8_weight_cache > 0) {
    out += ", FP8 weight cache " + g(m.fp8_weight_cache);
  }
  return out + ", activations " + g(m.activations) + ", logits " + g(m.transient) + ", reserve " + g(m.reserve) +
         " GiB";
}

}  // namespace dgx::plugins::llm_pretrain
