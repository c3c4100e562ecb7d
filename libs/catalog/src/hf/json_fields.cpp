#include "json_fields.hpp"

#include <cmath>
#include <limits>

namespace dgx::catalog::hf {

namespace {

/// A config.json nests a few levels (text_config.quantization_config.config_groups.group_0.weights); this bound
/// refuses hostile input (a document nested thousands deep) as soon as the parser meets it.
constexpr int kMaxNesting = 64;

/// The non-finite literal Python writes that starts `text`, if one does.
std::optional<std::string_view> non_finite_at(std::string_view text) {
  for (const std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
    if (text.starts_with(token)) {
      return token;
    }
  }
  return std::nullopt;
}

/// The text with Python's non-finite literals outside strings replaced by null, padded to the same length so that
/// positions in messages stay right (NaN, one character shorter, shifts the rest of its line by one).
std::string without_non_finite(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    in_string = c == '"';
    if (const auto token = non_finite_at(text.substr(i))) {
      out += "null";
      out.append(token->size() > 4 ? token->size() - 4 : 0, ' ');
      i += token->size() - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/// "line:column" (1-based) of byte `offset` of `text`.
std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

/// The parser's reason without its "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
std::string parser_reason(const std::string& what) {
  const std::size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& file) {
  // The parser reports each object and array it opens with its depth: one nested too deep ends the parse.
  const nlohmann::json::parser_callback_t bounded = [&](int depth, nlohmann::json::parse_event_t event,
                                                        nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= kMaxNesting) {
      throw HfError(file + ": not JSON dgxhost reads: nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    return true;
  };
  try {
    nlohmann::json document = nlohmann::json::parse(without_non_finite(text), bounded);
    if (!document.is_object()) {
      throw HfError(file + ": not a config.json: the document is " + std::string(document.type_name()) +
                    ", expected an object");
    }
    return document;
  } catch (const nlohmann::json::parse_error& error) {
    // byte is 1-based: the position of the character that failed.
    const std::size_t offset = error.byte > 0 ? error.byte - 1 : 0;
    throw HfError(file + ":" + line_column(text, offset) + ": not JSON: " + parser_reason(error.what()));
  }
}

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string prefix)
    : object_(&object), file_(std::move(file)), prefix_(std::move(prefix)) {}

bool JsonFields::has(std::string_view key) const {
  const auto it = object_->find(key);
  return it != object_->end() && !it->is_null();
}

std::string JsonFields::field(std::string_view key) const {
  return "'" + prefix_ + (prefix_.empty() ? "" : ".") + std::string(key) + "'";
}

void JsonFields::fail(std::string_view key, const std::string& reason) const {
  throw HfError(file_ + ": field " + field(key) + " " + reason);
}

const nlohmann::json& JsonFields::value(std::string_view key) const {
  if (!has(key)) {
    fail(key, "is missing (the architecture needs it)");
  }
  return *object_->find(key);
}

std::int64_t JsonFields::bounded(std::string_view key, std::int64_t low, const char* what) const {
  const nlohmann::json& v = value(key);
  const bool whole = v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                               v.get<double>() == std::floor(v.get<double>()));
  if (!whole) {
    fail(key, std::string("must be ") + what + ", got " + shown(v));
  }
  const double number = v.get<double>();
  if (number < static_cast<double>(low) || number > static_cast<double>(std::numeric_limits<int>::max())) {
    fail(key, std::string("must be ") + what + ", got " + shown(v));
  }
  return v.is_number_float() ? static_cast<std::int64_t>(number) : v.get<std::int64_t>();
}

std::int64_t JsonFields::integer(std::string_view key) const {
  const nlohmann::json& v = value(key);
  if (!v.is_number_integer()) {
    fail(key, "must be an integer, got " + shown(v));
  }
  return v.get<std::int64_t>();
}

int JsonFields::positive(std::string_view key) const { return static_cast<int>(bounded(key, 1, "a positive integer")); }

std::optional<int> JsonFields::optional_positive(std::string_view key) const {
  return has(key) ? std::optional<int>(positive(key)) : std::nullopt;
}

int JsonFields::count(std::string_view key, int fallback) const {
  return has(key) ? static_cast<int>(bounded(key, 0, "an integer of at least 0")) : fallback;
}

double JsonFields::number(std::string_view key) const {
  const nlohmann::json& v = value(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    fail(key, "must be a number, got " + shown(v));
  }
  return v.get<double>();
}

std::optional<double> JsonFields::optional_number(std::string_view key) const {
  return has(key) ? std::optional<double>(number(key)) : std::nullopt;
}

std::string JsonFields::string(std::string_view key) const {
  const nlohmann::json& v = value(key);
  if (!v.is_string()) {
    fail(key, "must be a string, got " + shown(v));
  }
  return v.get<std::string>();
}

std::optional<std::string> JsonFields::optional_string(std::string_view key) const {
  return has(key) ? std::optional<std::string>(string(key)) : std::nullopt;
}

bool JsonFields::boolean(std::string_view key, bool fallback) const {
  if (!has(key)) {
    return fallback;
  }
  const nlohmann::json& v = value(key);
  if (!v.is_boolean()) {
    fail(key, "must be true or false, got " + shown(v));
  }
  return v.get<bool>();
}

JsonFields JsonFields::object(std::string_view key) const {
  const nlohmann::json& v = value(key);
  if (!v.is_object()) {
    fail(key, "must be an object, got " + shown(v));
  }
  return JsonFields(v, file_, prefix_ + (prefix_.empty() ? "" : ".") + std::string(key));
}

template <class T>
std::vector<T> JsonFields::list(std::string_view key, bool (nlohmann::json::*is)() const noexcept,
                                const char* what) const {
  const nlohmann::json& v = value(key);
  std::vector<T> out;
  for (const nlohmann::json& item : v.is_array() ? v : nlohmann::json::array()) {
    if (!(item.*is)()) {
      break;
    }
    out.push_back(item.get<T>());
  }
  if (!v.is_array() || out.size() != v.size()) {
    fail(key, std::string("must be a list of ") + what + ", got " + shown(v));
  }
  return out;
}

std::vector<std::string> JsonFields::strings(std::string_view key) const {
  return list<std::string>(key, &nlohmann::json::is_string, "strings");
}

std::vector<std::int64_t> JsonFields::integers(std::string_view key) const {
  return list<std::int64_t>(key, &nlohmann::json::is_number_integer, "integers");
}

std::vector<JsonFields> JsonFields::objects(std::string_view key) const {
  const nlohmann::json& v = value(key);
  if (!v.is_array()) {
    fail(key, "must be a list of objects, got " + shown(v));
  }
  std::vector<JsonFields> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string path = prefix_ + (prefix_.empty() ? "" : ".") + std::string(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_object()) {
      throw HfError(file_ + ": field '" + path + "' must be an object, got " + shown(v[i]));
    }
    out.emplace_back(v[i], file_, path);
  }
  return out;
}

}  // namespace dgx::catalog::hf
