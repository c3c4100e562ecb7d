// Internal: the baseline files (configs/baselines/*.toml) — published measurements as [[row]] tables — read row by
// row, and their embedded copies. Shared by the training and the serving calibration sets.
#pragma once

#include "dgx/llm/embedded_configs.hpp"
#include "dgx/llm/expected.hpp"

#include "toml_reader.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgx::llm::detail {

/// Every [[row]] table of `text` read by `read_row(const TomlTable&)`; an error naming the file when a key is wrong
/// or there is no row.
template <class ReadRow>
auto read_baseline_rows(std::string_view text, std::string_view file, ReadRow read_row)
    -> Expected<std::vector<decltype(read_row(std::declval<const TomlTable&>()))>> {
  using Row = decltype(read_row(std::declval<const TomlTable&>()));
  auto rows = read_toml(text, file, [&](const TomlTable& root) {
    std::vector<Row> read;
    for (const TomlTable& t : root.tables("row")) {
      read.push_back(read_row(t));
    }
    return read;
  });
  if (rows && rows->empty()) {
    return Error{std::string(file) + ": no [[row]] tables"};
  }
  return rows;
}

/// The embedded file `path` (relative to configs/) parsed by `parse(text, "configs/<path>")`.
template <class Parse>
auto parse_embedded(std::string_view path, Parse parse) -> decltype(parse(std::string_view{}, std::string_view{})) {
  const auto text = embedded_config(path);
  if (!text) {
    return Error{"configs/" + std::string(path) + " is not embedded"};
  }
  return parse(*text, "configs/" + std::string(path));
}

}  // namespace dgx::llm::detail
