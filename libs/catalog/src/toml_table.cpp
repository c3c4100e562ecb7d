#include "dgx/catalog/toml_table.hpp"

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace dgx::catalog {

struct TomlTable::Document {
  std::shared_ptr<const toml::table> root;                    // shared by every read of the same text (parsed_once)
  std::set<const toml::node*> read;                           // nodes an accessor looked up
  std::set<const toml::node*> accepted;                       // nodes accepted whole, unread (accept())
  std::map<const toml::table*, std::set<std::string>> asked;  // every key asked of a table, found or not
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

/// "file:line:col", or "file" where toml++ has no position (a table made implicitly by a dotted key).
std::string position_of(const std::string& file, const toml::source_region& source) {
  if (source.begin.line == 0) {
    return file;
  }
  return file + ":" + std::to_string(source.begin.line) + ":" + std::to_string(source.begin.column);
}

toml::table parse_document(std::string_view text, std::string_view file) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    throw ConfigError(position_of(std::string(file), error.source()) + ": " + std::string(error.description()));
  }
#else
  toml::parse_result result = toml::parse(text, file);
  if (!result) {
    throw ConfigError(position_of(std::string(file), result.error().source()) + ": " +
                      std::string(result.error().description()));
  }
  return std::move(result).table();
#endif
}

/// The document of `text`, parsed once per process: a run reads the same catalog files several times (the system
/// for the host's checks and for the plugin's assumptions, a framework profile per release compared), and parsing
/// them again was most of a projection's set-up. Only the parse is shared: what each reader asks of it is its own.
std::shared_ptr<const toml::table> parsed_once(std::string_view text, std::string_view file) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const toml::table>, std::less<>> parsed;  // by file, NUL, text
  std::string key;
  key.reserve(file.size() + 1 + text.size());
  key.append(file).push_back('\0');
  key.append(text);
  const std::lock_guard lock(mutex);
  if (const auto it = parsed.find(key); it != parsed.end()) {
    return it->second;
  }
  auto table = std::make_shared<const toml::table>(parse_document(text, file));
  parsed.emplace(std::move(key), table);
  return table;
}

}  // namespace

TomlTable::TomlTable(std::shared_ptr<Document> document, const void* table, std::string file, std::string prefix)
    : document_(std::move(document)), table_(table), file_(std::move(file)), prefix_(std::move(prefix)) {}

TomlTable TomlTable::parse(std::string_view text, std::string_view file) {
  auto document = std::make_shared<Document>();
  document->root = parsed_once(text, file);
  const void* root = document->root.get();
  return TomlTable(std::move(document), root, std::string(file), "");
}

std::string TomlTable::position() const {
  return prefix_.empty() ? file_ : position_of(file_, as_table(table_).source());
}

std::string TomlTable::where(std::string_view key) const {
  const toml::node* own = as_table(table_).get(key);
  if (own == nullptr && base_ && base_->contains(key)) {
    return base_->where(key);
  }
  const std::string at = own != nullptr ? position_of(file_, own->source()) : position();
  return at + ": key '" + dotted(prefix_, key) + "'";
}

const void* TomlTable::own_node(std::string_view key) const {
  const auto* table = static_cast<const toml::table*>(table_);
  document_->asked[table].emplace(key);
  const toml::node* found = table->get(key);
  if (found != nullptr) {
    document_->read.insert(found);
  }
  return found;
}

const void* TomlTable::node(std::string_view key) const {
  const void* found = own_node(key);
  return found == nullptr && base_ ? base_->node(key) : found;
}

namespace {

void mark_read(const toml::node& node, std::set<const toml::node*>& read) {
  read.insert(&node);
  if (const toml::table* table = node.as_table()) {
    for (const auto& [key, value] : *table) {
      mark_read(value, read);
    }
  } else if (const toml::array* array = node.as_array()) {
    for (const toml::node& element : *array) {
      mark_read(element, read);
    }
  }
}

std::string as_json(const toml::node& node) {
  std::ostringstream out;
  node.visit([&](const auto& value) { out << toml::json_formatter{value}; });
  return out.str();
}

}  // namespace

std::string TomlTable::json_text(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (own_node(key) != nullptr) {
    mark_read(value, document_->read);
  }
  return as_json(value);
}

std::string TomlTable::json_text() const {
  mark_read(as_table(table_), document_->read);
  return as_json(as_table(table_));
}

std::vector<std::string> TomlTable::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : as_table(table_)) {
    out.emplace_back(key.str());
  }
  if (base_) {
    for (std::string& key : base_->keys()) {
      if (std::find(out.begin(), out.end(), key) == out.end()) {
        out.push_back(std::move(key));
      }
    }
  }
  return out;
}

void TomlTable::accept(std::initializer_list<std::string_view> keys) const {
  for (const std::string_view key : keys) {
    if (const auto* found = static_cast<const toml::node*>(own_node(key))) {
      document_->accepted.insert(found);
    }
  }
}

void TomlTable::accept(const std::vector<std::string>& keys) const {
  for (const std::string& key : keys) {
    if (const auto* found = static_cast<const toml::node*>(own_node(key))) {
      document_->accepted.insert(found);
    }
  }
}

namespace {

/// The first key under `table` (recursively) that no accessor looked up, as an error message; empty when none.
std::string first_unread(const toml::table& table, const std::string& prefix, const std::string& file,
                         const TomlTable::Document& document) {
  const auto& read = document.read;
  const auto& asked = document.asked;
  for (const auto& [key, value] : table) {
    const std::string name = dotted(prefix, key.str());
    if (document.accepted.contains(&value)) {
      continue;
    }
    if (!read.contains(&value)) {
      std::string message = position_of(file, value.source()) + ": unknown key '" + name + "'";
      const auto known = asked.find(&table);
      if (known != asked.end()) {
        const std::vector<std::string> close = sdk::text::close_matches(
            key.str(), std::vector<std::string>(known->second.begin(), known->second.end()), 1);
        if (!close.empty()) {
          message += " (did you mean '" + dotted(prefix, close.front()) + "'?)";
        }
      }
      return message;
    }
    std::string inner;
    if (const toml::table* sub = value.as_table()) {
      inner = first_unread(*sub, name, file, document);
    } else if (value.is_array_of_tables()) {
      const toml::array& array = *value.as_array();
      for (std::size_t i = 0; i < array.size() && inner.empty(); ++i) {
        inner = first_unread(*array[i].as_table(), name + "[" + std::to_string(i) + "]", file, document);
      }
    }
    if (!inner.empty()) {
      return inner;
    }
  }
  return {};
}

}  // namespace

void TomlTable::reject_unread() const {
  const std::string unread = first_unread(as_table(table_), prefix_, file_, *document_);
  if (!unread.empty()) {
    throw ConfigError(unread);
  }
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

std::vector<double> TomlTable::numbers(std::string_view key) const {
  const auto& value = *static_cast<const toml::node*>(required(key));
  if (!value.is_array()) {
    throw ConfigError(where(key) + " must be an array of numbers, found " + type_name(value));
  }
  std::vector<double> out;
  for (const toml::node& element : *value.as_array()) {
    if (!element.is_integer() && !element.is_floating_point()) {
      throw ConfigError(where(key) + " must hold only numbers, found " + type_name(element));
    }
    out.push_back(*element.value<double>());
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

}  // namespace dgx::catalog
