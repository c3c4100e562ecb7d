// The terminal table and Markdown reporters: one layout (the header lines, the notes before, a table per row group,
// the provenance lines, the notes after, the failure), in two table syntaxes.
#include <algorithm>
#include <string>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"
#include "dgx/core/report/wrap.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string markdown_table(const Table& t) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const std::string& c : cells) {
      out += " " + c + " |";
    }
    return out + "\n";
  };
  std::vector<std::string> headers = t.headers;
  for (std::size_t c = 0; c < t.groups.size() && c < headers.size(); ++c) {
    if (!t.groups[c].empty()) {
      headers[c] = t.groups[c] + " " + headers[c];  // Markdown has one header row
    }
  }
  std::string out = line(headers) + "|";
  for (const bool right : t.right_aligned) {
    out += right ? "---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : t.cells) {
    out += line(row);
  }
  return out;
}

/// A note's text under its title, each line indented by two and wrapped to `width` (0: not), the continuation of a
/// wrapped line by four.
std::string indented(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::vector<std::string> lines = wrap_words(text.substr(start, end - start), width > 4 ? width - 4 : 0);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += (i == 0 ? "  " : "\n    ") + lines[i];
    }
    if (end == text.size()) {
      break;
    }
    out += "\n";
    start = end + 1;
  }
  return out;
}

std::string render_notes(const Report& report, bool before, bool markdown, std::size_t width) {
  std::string out;
  for (const Note& n : report.notes) {
    if (n.before != before) {
      continue;
    }
    out += markdown ? "**" + n.title + "**\n\n" + n.text + "\n\n" : n.title + ":\n" + indented(n.text, width) + "\n\n";
  }
  return out;
}

std::string render_text(const Report& report, bool markdown, std::size_t width) {
  std::string out;
  for (const std::string& line : header_lines(report)) {
    out += markdown ? line + "  \n" : text::join(wrap_words(line, width), "\n    ") + "\n";
  }
  out += "\n";
  out += render_notes(report, true, markdown, width);
  for (const Table& t : tabulate(report.rows, false)) {
    if (markdown) {
      out += "### " + t.title + "\n\n" + markdown_table(t) + "\n";
    } else {
      out += t.title + "\n" + render_text_table(t) + "\n";
    }
  }
  if (report.rows.empty()) {
    out += "(no results)\n\n";
  }
  for (const std::string& line : provenance_lines(report.rows)) {
    out += markdown ? "- " + line + "\n" : text::join(wrap_words(line, width), "\n    ") + "\n";
  }
  if (!provenance_lines(report.rows).empty()) {
    out += "\n";
  }
  out += render_notes(report, false, markdown, width);
  if (report.exit_code != 0) {
    out += "run failed: " + report.error + "\n";
  }
  return out;
}

}  // namespace

std::string render_table(const Report& report, std::size_t width) { return render_text(report, false, width); }
std::string render_markdown(const Report& report) { return render_text(report, true, 0); }

}  // namespace dgx
