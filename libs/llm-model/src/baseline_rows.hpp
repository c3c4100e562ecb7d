// Internal: the baseline files (configs/baselines/*.toml) — published measurements as [[row]] tables — read row by
// row, and their embedded copies. Shared by the training and the serving calibration sets.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"

#include "dgx/catalog/toml_table.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgx::llm::detail {

using catalog::TomlTable;

/// The keys a baseline row carries for readers, not for the model: where it comes from and what it is, and the
/// row's other published columns (`published_*`), which the host's reference views read.
inline void accept_row_documentation(const TomlTable& row) {
  row.accept({"section", "label", "source", "note", "recipe", "memory_note"});
  std::vector<std::string> published;
  for (std::string& key : row.keys()) {
    if (key.starts_with("published_")) {
      published.push_back(std::move(key));
    }
  }
  row.accept(published);
}

/// Every [[row]] table of `text` read by `read_row(const TomlTable&)`; an error naming the file, line and key when a
/// key is wrong or unknown, or when there is no row. The [[reference]] views are the host's (core/verdict).
template <class ReadRow>
auto read_baseline_rows(std::string_view text, std::string_view file, ReadRow read_row)
    -> Expected<std::vector<decltype(read_row(std::declval<const TomlTable&>()))>> {
  using Row = decltype(read_row(std::declval<const TomlTable&>()));
  auto rows = catalog::read_toml(text, file, [&](const TomlTable& root) {
    std::vector<Row> read;
    root.accept({"reference"});
    for (const TomlTable& t : root.tables("row")) {
      accept_row_documentation(t);
      read.push_back(read_row(t));
    }
    return read;
  });
  if (rows && rows->empty()) {
    return Error{std::string(file) + ": no [[row]] tables"};
  }
  return rows;
}

/// The catalog file `path` (relative to configs/: a search folder's, else the compiled-in copy) parsed by
/// `parse(text, label)`.
template <class Parse>
auto parse_embedded(std::string_view path, Parse parse) -> decltype(parse(std::string_view{}, std::string_view{})) {
  auto file = catalog::find_catalog_file(path);
  if (!file) {
    return file.error();
  }
  if (!*file) {
    return Error{"configs/" + std::string(path) + " is in no config folder and not compiled in"};
  }
  return parse((*file)->text, (*file)->label);
}

}  // namespace dgx::llm::detail
