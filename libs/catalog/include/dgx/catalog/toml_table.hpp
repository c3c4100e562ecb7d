// The one TOML front door of the catalog: a typed view of a parsed document. Every error it raises names the file,
// the line and column, and the full key ("h100-mine.toml:7:1: key 'gpu.hbm_tb_s' must be a number"), and a document
// read through read_toml() must not hold a key its reader never asked for: a misspelt key ("power_cap" for
// "power_cap_w") is an error naming file, line and key, with the close spellings the reader knows. The only
// translation unit that includes toml++ is toml_table.cpp (it is slow to compile).
#pragma once

#include "dgx/catalog/expected.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgx::catalog {

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
  /// An array of numbers.
  [[nodiscard]] std::vector<double> numbers(std::string_view key) const;
  [[nodiscard]] TomlTable table(std::string_view key) const;
  /// An array of tables ([[key]]); empty when absent.
  [[nodiscard]] std::vector<TomlTable> tables(std::string_view key) const;
  /// The value of `key`, whatever its type, as JSON text (a reader that hands a value on whole: the host's
  /// reference views); the whole table (this layer) with no key. Everything beneath counts as read.
  [[nodiscard]] std::string json_text(std::string_view key) const;
  [[nodiscard]] std::string json_text() const;
  /// The keys of this table (this layer's, by name, then the inherited ones it lacks).
  [[nodiscard]] std::vector<std::string> keys() const;

  /// Marks keys the reader knows but does not use (documentation such as "source" or "notes"), so that
  /// reject_unread() accepts them.
  void accept(std::initializer_list<std::string_view> keys) const;
  void accept(const std::vector<std::string>& keys) const;

  /// This table with `base` underneath: a key this table lacks is looked up in `base`, sub-tables merge key by key
  /// (recursively), and messages about a key name the file it came from. How a catalog file inherits another.
  [[nodiscard]] TomlTable over(TomlTable base) const;

  /// "file:line:col: key 'a.b'" for error messages (the key's own position when the file has it, else the
  /// table's).
  [[nodiscard]] std::string where(std::string_view key) const;
  /// "file:line:col" of this table (of the file when it is the root).
  [[nodiscard]] std::string position() const;
  [[nodiscard]] const std::string& file() const { return file_; }

  /// Throws ConfigError for the first key of this document (not of an inherited one) that no accessor asked for:
  /// "file:line:col: unknown key 'gpu.power_cap' (did you mean 'gpu.power_cap_w'?)".
  void reject_unread() const;

  struct Document;  ///< the parsed document and what its readers asked of it (toml_table.cpp)

private:
  TomlTable(std::shared_ptr<Document> document, const void* table, std::string file, std::string prefix);
  [[nodiscard]] const void* own_node(std::string_view key) const;  // this layer only
  [[nodiscard]] const void* node(std::string_view key) const;      // this layer, else the base
  [[nodiscard]] const void* required(std::string_view key) const;

  std::shared_ptr<Document> document_;
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

/// Whether read_toml() refuses keys its reader did not ask for: every catalog file does; a workload preset, whose
/// keys the host checks against the workload's schema, is read only for its [preset] header.
enum class UnreadKeys : unsigned char { reject, allow };

/// Parses `text` and reads it with `read(const TomlTable&)`, then refuses any key the reader did not ask for; a
/// ConfigError becomes the Error value.
template <class Read>
auto read_toml(std::string_view text, std::string_view file, Read read, UnreadKeys unread = UnreadKeys::reject)
    -> Expected<decltype(read(std::declval<const TomlTable&>()))> {
  try {
    const TomlTable table = TomlTable::parse(text, file);
    auto value = read(table);
    if (unread == UnreadKeys::reject) {
      table.reject_unread();
    }
    return value;
  } catch (const ConfigError& error) {
    return Error{error.what()};
  }
}

}  // namespace dgx::catalog
