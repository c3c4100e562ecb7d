#include "dgx/core/report/reporters.hpp"

#include "dgx/core/results/output_path.hpp"

namespace dgx {

std::string render(const Report& report, Format format, std::size_t width) {
  switch (format) {
  case Format::json: return render_json(report);
  case Format::csv: return render_csv(report);
  case Format::markdown: return render_markdown(report);
  case Format::html: return render_html(report);
  case Format::table: break;
  }
  return render_table(report, width);
}

std::optional<std::string> write_report(const Report& report, Format format, const std::string& path) {
  return write_file_atomically(path, render(report, format));
}

}  // namespace dgx
