#include "settings.hpp"

#include <algorithm>
#include <cmath>

#include <dgx/sdk/text.hpp>

#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

namespace text = dgx::sdk::text;

}  // namespace

PretrainSettings read_settings(const dgx::sdk::Host& host) {
  using dgx::sdk::InvalidArgument;
  PretrainSettings s;
  static_cast<llm::workload::TrainingSettings&>(s) = llm::workload::read_training_settings(host);
  s.train.tokens = host.get_float(key::tokens);
  if (!(s.train.tokens > 0) || !std::isfinite(s.train.tokens)) {
    throw InvalidArgument(std::string(key::tokens) + " must be a positive number of tokens, got " +
                          text::fixed(s.train.tokens, 0));
  }
  s.deadline_days = host.find_float(key::deadline_days);
  if (s.deadline_days && !(*s.deadline_days > 0)) {
    throw InvalidArgument(std::string(key::deadline_days) + " must be a positive number of days, got " +
                          text::fixed(*s.deadline_days, 1));
  }
  return s;
}

}  // namespace dgx::plugins::llm_pretrain
