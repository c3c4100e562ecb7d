#include "dgx/llm/serve_measured.hpp"

#include "dgx/catalog/model_catalog.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/sdk/text.hpp"

#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

namespace dgx::llm {

namespace {

/// The source's system names and the catalog's.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kSystems{{{"h100_sxm", "h100-sxm"},
                                                                                 {"h200_sxm", "h200-sxm"},
                                                                                 {"b200_sxm", "b200"},
                                                                                 {"b300_sxm", "b300"},
                                                                                 {"gb200", "gb200-nvl72"},
                                                                                 {"gb300", "gb300-nvl72"}}};

/// The source's weight formats (moe_quant_mode for MoE models, whose experts hold most weights; gemm_quant_mode
/// else) and the catalog's precisions; empty: the checkpoint's BF16.
std::optional<Precision> weight_format(std::string_view quant) {
  if (quant.empty()) {
    return Precision::bf16;
  }
  if (quant == "fp8") {
    return Precision::fp8;
  }
  if (quant == "fp8_block") {
    return Precision::fp8_block;
  }
  if (quant == "nvfp4") {
    return Precision::nvfp4;
  }
  if (quant == "int4_wo") {
    return Precision::int4;
  }
  if (quant == "w4a16_mxfp4" || quant == "mxfp4") {
    return Precision::mxfp4;
  }
  return std::nullopt;
}

/// One CSV line's cells by the header's names.
class Cells {
public:
  Cells(const std::map<std::string, std::size_t, std::less<>>& columns, std::vector<std::string> cells,
        std::string_view where)
      : columns_(columns), cells_(std::move(cells)), where_(where) {}

  [[nodiscard]] const std::string& text(std::string_view column) const {
    static const std::string kEmpty;
    const auto it = columns_.find(column);
    return it == columns_.end() || it->second >= cells_.size() ? kEmpty : cells_[it->second];
  }
  /// A count: empty (or 0, which the source writes for "not used": expert parallel of a dense model) gives
  /// `fallback`; anything but a non-negative integer is an error.
  [[nodiscard]] Expected<int> count(std::string_view column, int fallback) const {
    const std::string& t = text(column);
    if (t.empty() || t == "0") {
      return fallback;
    }
    int value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (ec != std::errc{} || end != t.data() + t.size() || value < 1) {
      return error(column, "a positive integer", t);
    }
    return value;
  }
  [[nodiscard]] Expected<double> milliseconds(std::string_view column) const {
    const std::string& t = text(column);
    double value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || !(value > 0)) {
      return error(column, "a positive number of milliseconds", t);
    }
    return value;
  }
  [[nodiscard]] Error error(std::string_view column, std::string_view expected, std::string_view got) const {
    return Error{where_ + ": column " + std::string(column) + ": expected " + std::string(expected) + ", got '" +
                 std::string(got) + "'"};
  }
  [[nodiscard]] const std::string& where() const { return where_; }

private:
  const std::map<std::string, std::size_t, std::less<>>& columns_;
  std::vector<std::string> cells_;
  std::string where_;
};

/// The closed-loop concurrency the source states in its data-source column ("silicon_concurrency=N"); 0 if absent.
int stated_concurrency(std::string_view source) {
  constexpr std::string_view kKey = "silicon_concurrency=";
  const auto at = source.find(kKey);
  if (at == std::string_view::npos) {
    return 0;
  }
  const std::string_view rest = source.substr(at + kKey.size());
  int value = 0;
  std::from_chars(rest.data(), rest.data() + rest.size(), value);
  return value;
}

/// A layout of tp × attention-DP GPUs with expert parallel ep (1 for dense models).
Expected<ServeLayout> layout_of(const Cells& row, std::string_view prefix, bool& approximate) {
  const std::string p(prefix);
  auto tp = row.count(p + "tp_size", 1);
  auto dp = row.count(p + "attention_dp_size", 1);
  auto ep = row.count(p + "moe_ep_size", 1);
  auto pp = row.count(p + "pp_size", 1);
  if (!tp || !dp || !ep || !pp) {
    return !tp ? tp.error() : !dp ? dp.error() : !ep ? ep.error() : pp.error();
  }
  approximate = approximate || (*tp > 1 && *dp > 1);
  ServeLayout layout{.tp = *tp * *dp, .pp = *pp, .ep = *ep, .attention_dp = *dp > 1};
  if (layout.tp % layout.ep != 0) {
    return row.error(p + "moe_ep_size", "a divisor of the GPUs per stage (" + std::to_string(layout.tp) + ")",
                     std::to_string(layout.ep));
  }
  return layout;
}

Expected<MeasuredServing> read_row(const Cells& row) {
  MeasuredServing m;
  m.id = row.text("id");
  m.engine = row.text("backend");
  m.version = row.text("backend_version");
  m.checkpoint = row.text("model_path");
  if (m.engine != "trtllm" && m.engine != "vllm" && m.engine != "sglang") {
    return row.error("backend", "trtllm, vllm or sglang", m.engine);
  }
  const auto model = catalog::model_for_printed_name(m.checkpoint);
  if (!model) {
    return row.error("model_path", "a checkpoint of a catalog model", m.checkpoint);
  }
  m.model = *model;
  const std::string& system = row.text("system");
  for (const auto& [source, name] : kSystems) {
    if (system == source) {
      m.system = std::string(name);
    }
  }
  if (m.system.empty()) {
    return row.error("system", "h100_sxm, h200_sxm, b200_sxm, b300_sxm, gb200 or gb300", system);
  }
  const std::string& mode = row.text("mode");
  if (mode != "agg" && mode != "disagg") {
    return row.error("mode", "agg or disagg", mode);
  }
  m.disaggregated = mode == "disagg";
  auto spec = find_model(m.model);
  if (!spec) {
    return Error{row.where() + ": " + spec.error().message};
  }
  const std::string& quant = row.text(spec->moe() ? "moe_quant_mode" : "gemm_quant_mode");
  const auto precision = weight_format(quant);
  if (!precision) {
    return row.error(spec->moe() ? "moe_quant_mode" : "gemm_quant_mode", "fp8, fp8_block, nvfp4, int4_wo or empty",
                     quant);
  }
  ServeConfig& c = m.config;
  c.engine = parse_serve_engine(m.engine).value_or(ServeEngine::trtllm);
  // The source writes nvfp4 for gpt-oss's own MXFP4 experts (also on Hopper, which has no FP4 tensor cores).
  c.precision = spec->checkpoint.weights == catalog::WeightFormat::mxfp4 && *precision == Precision::nvfp4
                    ? Precision::mxfp4
                    : *precision;
  c.kv_precision = auto_kv_precision(c.precision);
  auto isl = row.count("isl", 0);
  auto osl = row.count("osl", 0);
  auto ttft = row.milliseconds("silicon_ttft_ms");
  auto tpot = row.milliseconds("silicon_tpot_ms");
  if (!isl || !osl || !ttft || !tpot || *isl == 0 || *osl == 0) {
    return !isl    ? isl.error()
           : !osl  ? osl.error()
           : !ttft ? ttft.error()
           : !tpot ? tpot.error()
                   : row.error("isl", "a length", "");
  }
  c.isl = *isl;
  c.osl = *osl;
  m.ttft_ms = *ttft;
  m.tpot_ms = *tpot;
  const int stated = stated_concurrency(row.text("silicon_data_source"));
  m.concurrency_stated = stated > 0;
  if (!m.disaggregated) {
    auto layout = layout_of(row, "", m.approximate_layout);
    auto batch = row.count("batch_size", 0);
    if (!layout || !batch) {
      return !layout ? layout.error() : batch.error();
    }
    c.layout = *layout;
    c.concurrency = stated > 0 ? stated : *batch * c.layout.attention_dp_ranks();
    return m;
  }
  auto decode = layout_of(row, "decode_", m.approximate_layout);
  auto prefill = layout_of(row, "prefill_", m.approximate_layout);
  auto px = row.count("prefill_num_workers", 0);
  auto dx = row.count("decode_num_workers", 0);
  auto batch = row.count("decode_batch_size", 0);
  if (!decode || !prefill || !px || !dx || !batch) {
    return !decode ? decode.error() : !prefill ? prefill.error() : !px ? px.error() : !dx ? dx.error() : batch.error();
  }
  c.layout = *decode;
  m.prefill = *prefill;
  m.prefill_workers = *px;
  m.decode_workers = *dx;
  c.concurrency = stated > 0 ? stated : *batch * std::max(1, *dx) * c.layout.attention_dp_ranks();
  return m;
}

}  // namespace

Expected<std::vector<MeasuredServing>> parse_serving_measured(std::string_view csv_text, std::string_view file) {
  std::vector<MeasuredServing> rows;
  std::map<std::string, std::size_t, std::less<>> columns;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < csv_text.size()) {
    const std::size_t end = std::min(csv_text.find('\n', start), csv_text.size());
    std::string_view line = csv_text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.empty()) {
      continue;
    }
    std::vector<std::string> cells = sdk::text::split(line, ',');
    if (columns.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        columns.emplace(cells[i], i);
      }
      for (const char* required : {"backend", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms",
                                   "silicon_tpot_ms", "silicon_data_source"}) {
        if (!columns.contains(required)) {
          return Error{std::string(file) + ":1: no column " + required + " (is this the serving-measured CSV?)"};
        }
      }
      continue;
    }
    if (cells.size() != columns.size()) {
      return Error{std::string(file) + ":" + std::to_string(line_number) + ": " + std::to_string(cells.size()) +
                   " cells, the header has " + std::to_string(columns.size())};
    }
    auto row = read_row(Cells(columns, std::move(cells), std::string(file) + ":" + std::to_string(line_number)));
    if (!row) {
      return row.error();
    }
    rows.push_back(std::move(*row));
  }
  if (rows.empty()) {
    return Error{std::string(file) + ": no measured row"};
  }
  return rows;
}

DisaggConfig disaggregated_config(const MeasuredServing& row) {
  DisaggConfig d;
  d.decode = row.config;
  d.prefill = row.prefill;
  d.prefill_workers = std::max(1, row.prefill_workers);
  d.decode_workers = std::max(1, row.decode_workers);
  d.decode.concurrency = std::max(1, row.config.concurrency / d.decode_workers);
  return d;
}

}  // namespace dgx::llm
