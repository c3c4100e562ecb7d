#include "toml_reader.hpp"

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include <cmath>
#include <limits>
#include <sstream>

namespace dgx::llm::detail {

struct TomlTable::Document {
  toml::table root;
};

namespace {

const toml::table& as_table(const void* table) { return *static_cast<const toml::table*>(table); }

std::string type_name(const toml::node& node) {
  std::ostringstream out;
  out << node.type();
  return out.str();
}

std::string dotted(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

toml::table parse_document(std::string_view text, std::string_view file) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    std::ostringstream out;
    out << file << ":" << error.source().begin.line << ":" << error.source().begin.column << ": "
        << error.description();
    throw ConfigError(out.str());
  }
#else
  toml::parse_result result = toml::parse(text, file);
  if (!result) {
    std::ostringstream out;
    out << file << ":" << result.error().source().begin.line << ":" << result.error().source().begin.column << ": "
        << result.error().description();
    throw ConfigError(out.str());
  }
  return std::move(result).table();
#endif
}

}  // namespace

TomlTable::TomlTable(std::shared_ptr<const Document> document, const void* table, std::string file, std::string prefix)
    : document_(std::move(document)), table_(table), file_(std::move(file)), prefix_(std::move(prefix)) {}

TomlTable TomlTable::parse(std::string_view text, std::string_view file) {
  auto document = std::make_shared<Document>(Document{parse_document(text, file)});
  const void* root = &document->root;
  return TomlTable(std::move(document), root, std::string(file), "");
}

std::string TomlTable::where(std::string_view key) const {
  if (own_node(key) == nullptr && base_ && base_->contains(key)) {
    return base_->where(key);
  }
  return file_ + ": key '" + dotted(prefix_, key) + "'";
}

const void* TomlTable::own_node(std::string_view key) const { return as_table(table_).get(key); }

const void* TomlTable::node(std::string_view key) const {
  const void* found = own_node(key);
  return found == nullptr && base_ ? base_->node(key) : found;
}

TomlTable TomlTable::over(TomlTable base) const {
  TomlTable layered = *this;
  layered.base_ = std::make_shared<const TomlTable>(std::move(base));
  return layered;
}

const void* TomlTable::required(std::string_view key) const {
  const void* found = node(key);
  if (found == nullptr) {
    throw ConfigError(where(key) + " is missing");
  }
  return found;
}

bool TomlTable::contains(std::string_view key) const { return node(key) != nullptr; }

double TomlTable::number(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (const auto number = value.value<double>(); number && (value.is_integer() || value.is_floating_point())) {
    return *number;
  }
  throw ConfigError(where(key) + " must be a number, found " + type_name(value));
}

std::optional<double> TomlTable::optional_number(std::string_view key) const {
  if (!contains(key)) {
    return std::nullopt;
  }
  return number(key);
}

std::int64_t TomlTable::integer(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (!value.is_integer()) {
    throw ConfigError(where(key) + " must be an integer, found " + type_name(value));
  }
  return *value.value<std::int64_t>();
}

int TomlTable::positive_int(std::string_view key) const {
  const std::int64_t value = integer(key);
  if (value < 1 || value > std::numeric_limits<int>::max()) {
    throw ConfigError(where(key) + " must be a positive integer, found " + std::to_string(value));
  }
  return static_cast<int>(value);
}

std::string TomlTable::string(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (!value.is_string()) {
    throw ConfigError(where(key) + " must be a string, found " + type_name(value));
  }
  return *value.value<std::string>();
}

std::optional<std::string> TomlTable::optional_string(std::string_view key) const {
  if (!contains(key)) {
    return std::nullopt;
  }
  return string(key);
}

bool TomlTable::boolean(std::string_view key, bool fallback) const {
  const auto* found = static_cast<const toml::node*>(node(key));
  if (found == nullptr) {
    return fallback;
  }
  if (!found->is_boolean()) {
    throw ConfigError(where(key) + " must be true or false, found " + type_name(*found));
  }
  return *found->value<bool>();
}

std::vector<std::string> TomlTable::strings(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (!value.is_array()) {
    throw ConfigError(where(key) + " must be an array of strings, found " + type_name(value));
  }
  std::vector<std::string> out;
  for (const toml::node& element : *value.as_array()) {
    if (!element.is_string()) {
      throw ConfigError(where(key) + " must hold only strings, found " + type_name(element));
    }
    out.push_back(*element.value<std::string>());
  }
  return out;
}

TomlTable TomlTable::table(std::string_view key) const {
  const auto* own = static_cast<const toml::node*>(own_node(key));
  if (own == nullptr && base_) {
    return base_->table(key);
  }
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (!value.is_table()) {
    throw ConfigError(where(key) + " must be a table, found " + type_name(value));
  }
  TomlTable child(document_, value.as_table(), file_, dotted(prefix_, key));
  if (base_ && base_->contains(key)) {
    return child.over(base_->table(key));
  }
  return child;
}

std::vector<TomlTable> TomlTable::tables(std::string_view key) const {
  std::vector<TomlTable> out;
  const auto* found = static_cast<const toml::node*>(own_node(key));
  if (found == nullptr) {
    return base_ ? base_->tables(key) : out;
  }
  if (!found->is_array_of_tables()) {
    throw ConfigError(where(key) + " must be an array of tables ([[" + std::string(key) + "]]), found " +
                      type_name(*found));
  }
  const auto& array = *found->as_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    out.push_back(
        TomlTable(document_, array[i].as_table(), file_, dotted(prefix_, key) + "[" + std::to_string(i) + "]"));
  }
  return out;
}

namespace {
std::string shortest(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}
}  // namespace

double bounded(const TomlTable& table, std::string_view key, double low, double high) {
  const double value = table.number(key);
  if (!(value >= low && value <= high)) {
    // A quantity that must be positive (a bandwidth, a capacity, a peak) given as zero or less is not a small
    // mistake in a fraction: say so.
    const std::string why = low > 0 && value <= 0 ? " (a non-physical value: it must be positive)" : "";
    throw ConfigError(table.where(key) + " is " + shortest(value) + ", outside its physical range [" + shortest(low) +
                      ", " + shortest(high) + "]" + why);
  }
  return value;
}

}  // namespace dgx::llm::detail
