#include "nccl_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

constexpr const char* kPlacements[] = {"out-of-place", "in-place"};

bool marked(const ResultRow* r) {
  const Field* f = r->find_field("table_layout");
  return r->mode == ResultMode::measured && f != nullptr && f->value == "nccl-tests" &&
         r->find_field("verdict") == nullptr && r->find_metric("size") != nullptr;
}

std::string integer(double v) {
  return std::isfinite(v) ? std::to_string(static_cast<long long>(std::llround(v))) : "nan";
}

using text::fixed;

// nccl-tests' time column: microseconds, 0 decimals from 10 ms, 1 from 100 us, else 2.
std::string time_us(double seconds) {
  const double us = seconds * 1e6;
  return fixed(us, us >= 10000 ? 0 : us >= 100 ? 1 : 2);
}

std::string metric_text(const ResultRow& r, const char* name, const char* unit, int decimals) {
  const Metric* m = r.find_metric(name);
  if (m == nullptr) {
    return "";
  }
  const auto v = convert(m->value, m->unit, unit);
  return v ? fixed(*v, decimals) : "";
}

// What nccl-tests prints in the redop and root columns for a collective that has none.
std::string redop_of(const ResultRow& r, const std::string& collective) {
  const bool reduces = collective == "all_reduce" || collective == "reduce_scatter" || collective == "reduce";
  return reduces ? r.config_text("comm.op", "sum") : "none";
}

std::string root_of(const ResultRow& r, const std::string& collective) {
  return collective == "broadcast" || collective == "reduce" ? r.config_text("comm.root", "0") : "-1";
}

struct Line {
  const ResultRow* any = nullptr;
  std::map<std::string, const ResultRow*> by_placement;
};

}  // namespace

std::optional<Table> nccl_tests_table(const std::string& title, const std::vector<const ResultRow*>& rows) {
  if (rows.empty() || !std::all_of(rows.begin(), rows.end(), marked)) {
    return std::nullopt;
  }
  const bool several =
      std::any_of(rows.begin(), rows.end(), [](const ResultRow* r) { return r->config.contains("comm.collective"); });
  // One line per (collective, size), in the rows' order.
  std::vector<std::pair<std::string, Line>> lines;
  std::vector<std::string> placements;
  for (const ResultRow* r : rows) {
    const std::string collective = r->config_text("comm.collective", r->workload);
    const std::string key = collective + "/" + integer(r->find_metric("size")->value);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == key; });
    if (it == lines.end()) {
      it = lines.insert(lines.end(), {key, Line{r, {}}});
    }
    const std::string placement = r->config_text("comm.placement", "out-of-place");
    it->second.by_placement[placement] = r;
    if (std::find(placements.begin(), placements.end(), placement) == placements.end()) {
      placements.push_back(placement);
    }
  }
  Table t;
  t.title = title + " (measured)";
  auto column = [&](std::string header, bool right, std::string group = "") {
    t.headers.push_back(std::move(header));
    t.right_aligned.push_back(right);
    t.groups.push_back(std::move(group));
  };
  if (several) {
    column("collective", false);
  }
  for (const char* h : {"size [B]", "count [elements]", "type", "redop", "root"}) {
    column(h, true);
  }
  std::vector<std::string> shown;
  for (const char* p : kPlacements) {
    if (std::find(placements.begin(), placements.end(), p) != placements.end()) {
      shown.emplace_back(p);
    }
  }
  for (const std::string& p : shown) {
    for (const char* h : {"time [us]", "algbw [GB/s]", "busbw [GB/s]", "#wrong"}) {
      column(h, true, p);
    }
  }
  for (const auto& [key, line] : lines) {
    const ResultRow& r = *line.any;
    const std::string collective = r.config_text("comm.collective", r.workload);
    std::vector<std::string> cells;
    if (several) {
      cells.push_back(collective);
    }
    cells.push_back(integer(r.find_metric("size")->value));
    const Metric* count = r.find_metric("count");
    cells.push_back(count != nullptr ? integer(count->value) : "");
    cells.push_back(r.config_text("comm.dtype"));
    cells.push_back(redop_of(r, collective));
    cells.push_back(root_of(r, collective));
    for (const std::string& p : shown) {
      const auto found = line.by_placement.find(p);
      if (found == line.by_placement.end()) {  // no in-place variant of this collective: nccl-tests prints N/A
        cells.insert(cells.end(), {"N/A", "N/A", "N/A", "N/A"});
        continue;
      }
      const ResultRow& c = *found->second;
      const Metric* time = c.find_metric("time");
      const auto seconds = time != nullptr ? convert(time->value, time->unit, "s") : std::nullopt;
      cells.push_back(seconds ? time_us(*seconds) : "");
      cells.push_back(metric_text(c, "algbw", "GB/s", 2));
      cells.push_back(metric_text(c, "busbw", "GB/s", 2));
      const Metric* wrong = c.find_metric("wrong");
      const Field* check = c.find_field("check");
      const bool checked = wrong != nullptr && (check == nullptr || check->value.rfind("ok", 0) == 0 ||
                                                check->value.rfind("FAILED", 0) == 0);
      cells.push_back(checked ? integer(wrong->value) : "N/A");  // nccl-tests: N/A when not checked (-c 0)
    }
    t.cells.push_back(std::move(cells));
  }
  return t;
}

}  // namespace dgx
