#include "dgx/core/report/reporters.hpp"

#include "dgx/core/results/output_path.hpp"

namespace dgx {

Expected<std::string> render(const Report& report, Format format, std::size_t width) {
  switch (format) {
  case Format::json: return render_json(report);
  case Format::csv: return render_csv(report);
  case Format::markdown: return render_markdown(report);
  case Format::html: return render_html(report);
  case Format::junit: return render_junit(report);
  case Format::prometheus: return render_prometheus(report);
  case Format::table: break;
  }
  return render_table(report, width);
}

std::optional<Failure> write_report(const Report& report, Format format, const std::string& path) {
  auto text = render(report, format);
  if (!text) {
    return text.error();
  }
  if (auto problem = write_file_atomically(path, text.value())) {
    return Failure{ExitCode::run_failed, *problem};
  }
  return std::nullopt;
}

}  // namespace dgx
