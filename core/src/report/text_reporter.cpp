// The terminal table and Markdown reporters: one layout (the header lines, the notes before, a table per row group,
// the provenance lines, the notes after, the failure), in two table syntaxes.
#include <string>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"

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

std::string render_notes(const Report& report, bool before, bool markdown) {
  std::string out;
  for (const Note& n : report.notes) {
    if (n.before != before) {
      continue;
    }
    if (markdown) {
      out += "**" + n.title + "**\n\n" + n.text + "\n\n";
    } else {
      out += n.title + ":\n  " + [&] {
        std::string indented;
        for (const char c : n.text) {
          indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
        }
        return indented;
      }() + "\n\n";
    }
  }
  return out;
}

std::string render_text(const Report& report, bool markdown) {
  std::string out;
  for (const std::string& line : header_lines(report)) {
    out += markdown ? line + "  \n" : line + "\n";
  }
  out += "\n";
  out += render_notes(report, true, markdown);
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
    out += (markdown ? "- " : "") + line + "\n";
  }
  if (!provenance_lines(report.rows).empty()) {
    out += "\n";
  }
  out += render_notes(report, false, markdown);
  if (report.exit_code != 0) {
    out += "run failed: " + report.error + "\n";
  }
  return out;
}

}  // namespace

std::string render_table(const Report& report) { return render_text(report, false); }
std::string render_markdown(const Report& report) { return render_text(report, true); }

}  // namespace dgx
