// Result rows of projected pretraining configurations, shared by project, explore and measure mode so that all
// carry the same config keys, metric names and provenance fields (docs/results-schema.md). What the terminal table
// shows is chosen with the hidden flags: JSON and CSV always carry everything.
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

namespace workload = llm::workload;

}  // namespace

dgx::sdk::Row Pretraining::projected_row(const std::string& table, const llm::TrainConfig& train,
                                         const workload::Headline& headline, const llm::StepBreakdown& breakdown,
                                         workload::Compared compared) const {
  dgx::sdk::Row row(dgx::sdk::ResultMode::projected);
  row.table(table);
  workload::add_training_config(row, assumptions_, headline.gpus, train, compared);
  row.config(key::tokens, train.tokens, DGX_CONFIG_HIDDEN);
  workload::add_headline_metrics(row, headline, workload::RunTime::days_to_train);
  workload::add_provenance(row, assumptions_, train, headline.gpus);
  workload::add_breakdown_metrics(row, breakdown);
  return row;
}

dgx::sdk::Row Pretraining::projected_row(const std::string& table, const llm::TrainConfig& train,
                                         const workload::Headline& headline,
                                         const llm::StepBreakdown& breakdown) const {
  return projected_row(table, train, headline, breakdown, workload::Compared{});
}

}  // namespace dgx::plugins::llm_pretrain
