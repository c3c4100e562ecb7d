// The HTML reporter: one self-contained page that works offline — charts drawn by Chart.js, embedded at build time
// with the page's stylesheet and chart driver (html_assets.hpp), then every table, note and the context block as
// text. The charts are chosen in html_charts.cpp.
#include <algorithm>
#include <string>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"
#include "dgx/core/support/text.hpp"
#include "html_assets.hpp"
#include "html_charts.hpp"

namespace dgx {

namespace {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

// Text inside <script>: only "</" can end it early.
std::string script_safe(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
      out += "\\";
    }
  }
  return out;
}

std::string asset(std::span<const html::EmbeddedFile> files, std::string_view path) {
  for (const html::EmbeddedFile& f : files) {
    if (f.path == path) {
      return std::string(f.text);
    }
  }
  return {};
}

// Reports errors before any other script runs, so the self-test sees them all.
constexpr const char* kErrorGuard = R"(window.dgxErrors = [];
window.addEventListener('error', function (e) { window.dgxErrors.push(String(e.message)); });
(function () { const original = console.error; console.error = function () {
  window.dgxErrors.push(Array.prototype.slice.call(arguments).join(' ')); original.apply(console, arguments); }; })();)";

std::string title_of(const Report& report) {
  const json::Value* w = report.context.find("workload");
  std::string title = w != nullptr && w->is_string() ? w->as_string() : "results";
  if (const json::Value* p = report.context.find("preset"); p != nullptr && p->is_string()) {
    title = p->as_string() + " (" + title + ")";
  }
  return title;
}

std::string header(const Report& report) {
  std::string out = "<header>\n<h1>dgxhost report: " + escape(title_of(report)) + "</h1>\n";
  for (const std::string& line : header_lines(report)) {
    out += "<p class=\"header-line\">" + escape(line) + "</p>\n";
  }
  if (report.exit_code != 0) {
    out += "<p class=\"status-failed\">exit code " + std::to_string(report.exit_code) + ": " + escape(report.error) +
           "</p>\n";
  }
  return out + "</header>\n";
}

std::string charts_section(const std::vector<json::Object>& charts, bool have_chartjs) {
  if (charts.empty()) {
    return {};
  }
  std::string out = "<section>\n<h2>Charts</h2>\n";
  if (!have_chartjs) {
    out += "<p class=\"notice\">This dgxhost was built without Chart.js (Debian package libjs-chart.js): the charts "
           "are not drawn; the tables below hold every number.</p>\n";
  }
  out += "<div class=\"charts\">\n";
  for (const json::Object& c : charts) {
    const json::Value* caption = c.find("caption");
    // A chart may ask for its canvas size (a horizontal bar chart: as tall as its labels need).
    const json::Value* width = c.find("width");
    const json::Value* height = c.find("height");
    out += "<figure class=\"chart\"><canvas id=\"" + escape(c.at("id").as_string()) + "\" width=\"" +
           std::to_string(width != nullptr ? width->as_int() : 640) + "\" height=\"" +
           std::to_string(height != nullptr ? height->as_int() : 360) + "\"></canvas>";
    if (caption != nullptr) {
      out += "<p>" + escape(caption->as_string()) + "</p>";
    }
    out += "</figure>\n";
  }
  return out + "</div>\n</section>\n";
}

// A header row of column groups (nccl-tests' out-of-place / in-place), when the table has them.
std::string groups_html(const Table& t) {
  if (std::all_of(t.groups.begin(), t.groups.end(), [](const std::string& g) { return g.empty(); })) {
    return {};
  }
  std::string out = "<tr>";
  for (std::size_t c = 0; c < t.groups.size();) {
    std::size_t span = 1;
    while (c + span < t.groups.size() && t.groups[c + span] == t.groups[c]) {
      ++span;
    }
    out += "<th colspan=\"" + std::to_string(span) + "\">" + escape(t.groups[c]) + "</th>";
    c += span;
  }
  return out + "</tr>";
}

std::string table_html(const Table& t) {
  std::string out = "<h3>" + escape(t.title) + "</h3>\n<table>\n<thead>" + groups_html(t) + "<tr>";
  for (std::size_t c = 0; c < t.headers.size(); ++c) {
    out += std::string(t.right_aligned[c] ? "<th class=\"num\">" : "<th>") + escape(t.headers[c]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.cells) {
    out += "<tr class=\"mode-" + escape(row.empty() ? "" : row[0]) + "\">";
    for (std::size_t c = 0; c < row.size(); ++c) {
      std::string cls = t.right_aligned[c] ? "num" : "";
      if (t.headers[c] == "verdict" && !row[c].empty()) {
        cls += " verdict-" + row[c].substr(0, row[c].find(' '));
      }
      out += (cls.empty() ? "<td>" : "<td class=\"" + escape(text::trim(cls)) + "\">") + escape(row[c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string notes_html(const Report& report, bool before) {
  std::string out;
  for (const Note& n : report.notes) {
    if (n.before == before) {
      out += "<div class=\"note\"><h3>" + escape(n.title) + "</h3><pre>" + escape(n.text) + "</pre></div>\n";
    }
  }
  return out;
}

std::string results_section(const Report& report) {
  std::string out = "<section>\n<h2>Results</h2>\n";
  out += notes_html(report, true);
  for (const Table& t : tabulate(report.rows, false)) {
    out += table_html(t);
  }
  if (report.rows.empty()) {
    out += "<p>(no results)</p>\n";
  }
  const std::vector<std::string> provenance = provenance_lines(report.rows);
  if (!provenance.empty()) {
    out += "<pre class=\"provenance\">" + escape(text::join(provenance, "\n")) + "</pre>\n";
  }
  out += notes_html(report, false);
  return out + "</section>\n";
}

std::string context_section(const Report& report) {
  return "<section>\n<h2>Context</h2>\n<pre class=\"context\">" + escape(json::write(report.context)) +
         "</pre>\n</section>\n";
}

}  // namespace

std::string render_html(const Report& report) {
  const std::vector<json::Object> charts = html::charts_for(report);
  json::Array specs(charts.begin(), charts.end());
  const std::string chartjs = asset(html::chartjs_assets(), "chart.min.js");
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>dgxhost: " +
                    escape(title_of(report)) + "</title>\n<style>\n" + asset(html::report_assets(), "report.css") +
                    "</style>\n<script>\n" + kErrorGuard + "\n</script>\n</head>\n<body>\n";
  out += header(report);
  out += charts_section(charts, !chartjs.empty());
  out += results_section(report);
  out += context_section(report);
  out += "<pre id=\"dgx-selftest\"></pre>\n";
  out += "<script type=\"application/json\" id=\"dgx-charts\">" + script_safe(json::write(specs, 0)) + "</script>\n";
  if (!chartjs.empty()) {
    out += "<script>\n" + script_safe(chartjs) + "\n</script>\n";
  }
  out += "<script>\n" + asset(html::report_assets(), "report.js") + "\n</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace dgx
