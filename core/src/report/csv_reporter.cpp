// The CSV reporter: one table of every row, with every column, unscaled.
#include <string>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"

namespace dgx {

namespace {

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (const char c : s) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

}  // namespace

std::string render_csv(const Report& report) {
  // One CSV holds one table: the columns of every row group, united, plus workload and plugin.
  std::vector<const ResultRow*> all;
  for (const ResultRow& r : report.rows) {
    all.push_back(&r);
  }
  const Table t = build_table("results", all, true);
  std::string out = "workload,plugin";
  for (const std::string& h : t.headers) {
    out += "," + csv_cell(h);
  }
  out += "\n";
  for (std::size_t i = 0; i < t.cells.size(); ++i) {
    out += csv_cell(report.rows[i].workload) + "," + csv_cell(report.rows[i].plugin);
    for (const std::string& c : t.cells[i]) {
      out += "," + csv_cell(c);
    }
    out += "\n";
  }
  return out;
}

}  // namespace dgx
