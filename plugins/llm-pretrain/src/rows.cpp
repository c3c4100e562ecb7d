#include "rows.hpp"

#include <cstdint>

#include "format.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::Row;

constexpr std::uint32_t kHiddenConfig = DGX_CONFIG_HIDDEN;

void add_config(Row& row, const Assumptions& a, int gpus, const llm::TrainConfig& t) {
  // The keys users set, so a row can be fed back with --set; only gpus and precision vary as table columns
  // (the layout field stands for the rest).
  row.config(key::model, a.model.name, kHiddenConfig)
      .config(key::system, a.system.name, kHiddenConfig)
      .config(key::gpus, gpus)
      .config(key::precision, std::string(llm::to_string(t.precision)))
      .config(key::tp, t.layout.tp, kHiddenConfig)
      .config(key::pp, t.layout.pp, kHiddenConfig)
      .config(key::cp, t.layout.cp, kHiddenConfig)
      .config(key::vp, t.layout.vp, kHiddenConfig)
      .config(key::ep, t.layout.ep, kHiddenConfig)
      .config(key::mbs, t.mbs, kHiddenConfig)
      .config(key::gbs, t.gbs, kHiddenConfig)
      .config(key::seq_len, t.seq_len, kHiddenConfig)
      .config(key::tokens, t.tokens, kHiddenConfig)
      .config(key::recompute, std::string(llm::to_string(t.recompute)), kHiddenConfig)
      .config(key::distributed_optimizer, t.distributed_optimizer, kHiddenConfig)
      .config(key::flops_convention, std::string(llm::to_string(t.flops_convention)), kHiddenConfig);
}

}  // namespace

Row projected_row(const std::string& table, const Assumptions& assumptions, const llm::TrainConfig& train,
                  const Headline& headline, const llm::StepBreakdown& breakdown) {
  Row row(dgx::sdk::ResultMode::projected);
  row.table(table);
  add_config(row, assumptions, headline.gpus, train);
  llm::plugin::add_provenance(row, assumptions, train);
  llm::plugin::add_headline_metrics(row, headline, llm::plugin::RunTime::days_to_train);
  llm::plugin::add_breakdown_metrics(row, breakdown);
  return row;
}

}  // namespace dgx::plugins::llm_pretrain
