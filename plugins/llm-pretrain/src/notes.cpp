#include "notes.hpp"

#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "format.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

std::string model_line(const PretrainSettings& s, const Assumptions& a) {
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : a.model.seq_len;
  return "Model: " + llm::workload::model_text(a.model) + "; sequences of " + std::to_string(seq) + " tokens, " +
         si_count(s.train.tokens) + " tokens to train.";
}

std::string accuracy_line(const PretrainSettings& s, const Assumptions& a) {
  std::vector<std::string> classes;
  for (const llm::Precision p : s.precisions) {
    classes.push_back(llm::workload::class_accuracy_text(a.system, p));
  }
  return "Performance model: " + std::string(llm::constants::kModelVersion) +
         ", per-op rooflines of the system profile with calibrated efficiencies; accuracy on published runs: " +
         a.calibration + "; for this system: " + join(classes) + ".";
}

}  // namespace

std::string assumptions_note(const PretrainSettings& settings, const Assumptions& assumptions) {
  return model_line(settings, assumptions) + "\n" + llm::workload::system_line(settings, assumptions) + "\n" +
         llm::workload::framework_line(settings, assumptions) + "\n" + llm::workload::price_line(assumptions) + "\n" +
         accuracy_line(settings, assumptions);
}

std::string scope_note(const PretrainSettings& settings, const Assumptions& assumptions) {
  const int seq = settings.train.seq_len > 0 ? settings.train.seq_len : assumptions.model.seq_len;
  const std::vector<std::string> reasons =
      llm::workload::calibration_scope(assumptions.model, assumptions.system, settings.precisions, seq);
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

}  // namespace dgx::plugins::llm_pretrain
