#include "rows.hpp"

#include <cstdint>

#include "format.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::Row;

constexpr std::uint32_t kHiddenConfig = DGX_CONFIG_HIDDEN;

void add_config(Row& row, const Assumptions& a, int gpus, const llm::TrainConfig& t, bool framework_column) {
  llm::workload::add_training_config(row, a, gpus, t, framework_column);
  row.config(key::tokens, t.tokens, kHiddenConfig);
}

}  // namespace

Row projected_row(const std::string& table, const Assumptions& assumptions, const llm::TrainConfig& train,
                  const Headline& headline, const llm::StepBreakdown& breakdown, bool framework_column) {
  Row row(dgx::sdk::ResultMode::projected);
  row.table(table);
  add_config(row, assumptions, headline.gpus, train, framework_column);
  llm::workload::add_provenance(row, assumptions, train);
  llm::workload::add_headline_metrics(row, headline, llm::workload::RunTime::days_to_train);
  llm::workload::add_breakdown_metrics(row, breakdown);
  return row;
}

}  // namespace dgx::plugins::llm_pretrain
