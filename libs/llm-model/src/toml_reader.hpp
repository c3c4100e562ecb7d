// Internal: a small typed view of a parsed TOML document. The only translation unit that includes toml++ is
// toml_reader.cpp (it is slow to compile). Every accessor throws ConfigError naming the file and the full key,
// and the catalogs turn that into an Error value.
#pragma once

#include "dgx/llm/expected.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgx::llm::detail {

class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class TomlTable {
public:
  /// Parses a document; syntax errors read "file:line:column: description".
  [[nodiscard]] static TomlTable parse(std::string_view text, std::string_view file);

  [[nodiscard]] bool contains(std::string_view key) const;
  /// An integer or floating-point value.
  [[nodiscard]] double number(std::string_view key) const;
  [[nodiscard]] std::optional<double> optional_number(std::string_view key) const;
  [[nodiscard]] std::int64_t integer(std::string_view key) const;
  [[nodiscard]] int positive_int(std::string_view key) const;  ///< an integer ≥ 1 that fits an int
  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key) const;
  [[nodiscard]] bool boolean(std::string_view key, bool fallback) const;
  /// An array of strings.
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const;
  [[nodiscard]] TomlTable table(std::string_view key) const;
  /// An array of tables ([[key]]); empty when absent.
  [[nodiscard]] std::vector<TomlTable> tables(std::string_view key) const;

  /// This table with `base` underneath: a key this table lacks is looked up in `base`, sub-tables merge key by key
  /// (recursively), and messages about a key name the file it came from. How a catalog file inherits another.
  [[nodiscard]] TomlTable over(TomlTable base) const;

  /// "file: key 'a.b'" for error messages.
  [[nodiscard]] std::string where(std::string_view key) const;
  [[nodiscard]] const std::string& file() const { return file_; }

private:
  struct Document;
  TomlTable(std::shared_ptr<const Document> document, const void* table, std::string file, std::string prefix);
  [[nodiscard]] const void* own_node(std::string_view key) const;  // this layer only
  [[nodiscard]] const void* node(std::string_view key) const;      // this layer, else the base
  [[nodiscard]] const void* required(std::string_view key) const;

  std::shared_ptr<const Document> document_;
  const void* table_ = nullptr;  // a toml::table inside document_
  std::string file_;
  std::string prefix_;                     // dotted path of this table, for messages
  std::shared_ptr<const TomlTable> base_;  // the inherited layer, if any
};

/// A number of `table` in [low, high]; the message names the key and the allowed range.
[[nodiscard]] double bounded(const TomlTable& table, std::string_view key, double low, double high);

/// Reads `key` of `table` as a value of an enum through `parse` (returning std::optional), or throws naming the
/// allowed spellings.
template <class Parse>
auto parse_enum(const TomlTable& table, std::string_view key, Parse parse, std::string_view allowed) {
  const std::string text = table.string(key);
  auto value = parse(text);
  if (!value) {
    throw ConfigError(table.where(key) + " is \"" + text + "\", expected one of " + std::string(allowed));
  }
  return *value;
}

/// Parses `text` and reads it with `read(const TomlTable&)`; a ConfigError becomes the Error value.
template <class Read>
auto read_toml(std::string_view text, std::string_view file, Read read)
    -> Expected<decltype(read(std::declval<const TomlTable&>()))> {
  try {
    return read(TomlTable::parse(text, file));
  } catch (const ConfigError& error) {
    return Error{error.what()};
  }
}

}  // namespace dgx::llm::detail
