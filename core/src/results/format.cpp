#include "dgx/core/results/format.hpp"

#include <filesystem>
#include <string>

namespace dgx {

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "table") {
    return Format::table;
  }
  if (name == "json") {
    return Format::json;
  }
  if (name == "csv") {
    return Format::csv;
  }
  if (name == "md" || name == "markdown") {
    return Format::markdown;
  }
  if (name == "html" || name == "htm") {
    return Format::html;
  }
  if (name == "junit") {
    return Format::junit;
  }
  if (name == "prometheus") {
    return Format::prometheus;
  }
  return std::nullopt;
}

std::optional<Format> format_from_path(std::string_view path) {
  const std::string extension = std::filesystem::path(path).extension().string();  // of the file name only
  if (extension.size() < 2) {
    return std::nullopt;
  }
  const std::string_view ext = std::string_view(extension).substr(1);
  if (ext == "txt") {
    return Format::table;
  }
  if (ext == "xml") {
    return Format::junit;  // the one XML dgxhost writes; CI systems collect JUnit reports by this extension
  }
  if (ext == "prom") {
    return Format::prometheus;  // what node_exporter's textfile collector reads (*.prom)
  }
  if (ext == "markdown" || ext == "junit" || ext == "prometheus") {
    return std::nullopt;  // names of formats, not extensions dgxhost writes
  }
  return format_from_name(ext);
}

}  // namespace dgx
