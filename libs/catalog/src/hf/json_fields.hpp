// Private to the Hugging Face reader (hf_config.cpp): a typed view of one object of a config.json whose every error
// names the file, the field's full path and what was expected ("config.json: field 'text_config.num_key_value_heads'
// must be a positive integer, got -3"). A config.json holds many fields the reader does not use: unlike the catalog's
// TOML front door, an unread field is no error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog::hf {

/// What a reader throws; hf_config.cpp turns it into the Error value.
class HfError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Parses JSON text. Python's json module writes Infinity and NaN for non-finite floats (Nemotron-H's
/// time_step_limit), which JSON has not: they read as null. Syntax errors read "file:line:column: not JSON: why";
/// nesting deeper than a config needs is refused.
[[nodiscard]] nlohmann::json parse_json(std::string_view text, const std::string& file);

class JsonFields {
public:
  JsonFields(const nlohmann::json& object, std::string file, std::string prefix = {});

  /// Whether the field is present and not null (configs write null for "not used": "sliding_window": null).
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] std::int64_t integer(std::string_view key) const;
  /// An integer ≥ 1 that fits an int.
  [[nodiscard]] int positive(std::string_view key) const;
  [[nodiscard]] std::optional<int> optional_positive(std::string_view key) const;
  /// An integer ≥ 0 that fits an int; absent or null: `fallback`.
  [[nodiscard]] int count(std::string_view key, int fallback = 0) const;
  [[nodiscard]] double number(std::string_view key) const;
  [[nodiscard]] std::optional<double> optional_number(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key) const;
  [[nodiscard]] bool boolean(std::string_view key, bool fallback) const;
  [[nodiscard]] JsonFields object(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const;
  [[nodiscard]] std::vector<std::int64_t> integers(std::string_view key) const;
  /// An array of objects.
  [[nodiscard]] std::vector<JsonFields> objects(std::string_view key) const;

  /// "'text_config.num_attention_heads'": the field as messages name it.
  [[nodiscard]] std::string field(std::string_view key) const;
  /// Throws HfError: "<file>: field '<path>' <reason>".
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;
  [[nodiscard]] const std::string& file() const { return file_; }

private:
  [[nodiscard]] const nlohmann::json& value(std::string_view key) const;  // present or fails "is missing"
  [[nodiscard]] std::int64_t bounded(std::string_view key, std::int64_t low, const char* what) const;
  template <class T>
  [[nodiscard]] std::vector<T> list(std::string_view key, bool (nlohmann::json::*is)() const noexcept,
                                    const char* what) const;

  const nlohmann::json* object_;
  std::string file_;
  std::string prefix_;
};

}  // namespace dgx::catalog::hf
