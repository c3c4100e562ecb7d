// Test helper: what the LLM plugins' tests build by hand around a projection: the assumptions of a model on H100
// (with or without a price), and the model library's own projection of the llama70b preset's layout.
#pragma once

#include <string>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/assumptions.hpp"

namespace dgx::testing {

/// `model` on h100-sxm at $2/GPU-h labelled `price_label`, or with no price.
inline llm::workload::Assumptions h100_assumptions(const std::string& model, bool priced,
                                                   const std::string& price_label = "test") {
  llm::workload::Assumptions a;
  a.model = llm::find_model(model).value();
  a.system = llm::find_system("h100-sxm").value();
  if (priced) {
    a.price = llm::Price{.usd_per_gpu_hour = 2, .label = price_label};
  }
  return a;
}

/// Llama 3.1 70B on 64 x h100-sxm in `precision` at the llama70b preset's layout (TP4 PP4 CP2 VP5), GBS 128 of 8192
/// tokens: the request whose projection a plugin's row must repeat.
inline llm::ProjectionRequest llama70b_on_64_h100(llm::Precision precision) {
  llm::ProjectionRequest request;
  request.model = "llama3.1-70b";
  request.system = "h100-sxm";
  request.gpus = 64;
  request.train.precision = precision;
  request.train.layout = {.tp = 4, .pp = 4, .cp = 2, .vp = 5, .ep = 1};
  request.train.gbs = 128;
  request.train.seq_len = 8192;
  return request;
}

}  // namespace dgx::testing
