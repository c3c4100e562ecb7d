#include "dgx/core/config/layered_config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <dgx/sdk/toml_literal.hpp>

#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

std::string_view to_string(ParamType type) {
  switch (type) {
  case ParamType::boolean: return "bool";
  case ParamType::integer: return "int";
  case ParamType::floating: return "float";
  case ParamType::string: return "string";
  case ParamType::int_list: return "int list";
  case ParamType::float_list: return "float list";
  case ParamType::string_list: return "string list";
  }
  return "?";
}

std::string SourceLocation::describe() const {
  if (!argument.empty()) {
    return argument;
  }
  if (!file.empty()) {
    if (line > 0) {
      return file + ":" + std::to_string(line) + ":" + std::to_string(column);
    }
    return file;
  }
  return origin;
}

namespace {

std::string describe_value(const json::Value& v) {
  if (v.is_bool()) {
    return std::string("boolean ") + (v.as_bool() ? "true" : "false");
  }
  if (v.is_int()) {
    return "integer " + std::to_string(v.as_int());
  }
  if (v.is_double()) {
    return "float " + text::format_number(v.as_number(), 6);
  }
  if (v.is_string()) {
    return "string \"" + v.as_string() + "\"";
  }
  if (v.is_array()) {
    return "array " + json::write(v, 0);
  }
  return "null";
}

std::optional<ParamType> element_type(ParamType list_type) {
  switch (list_type) {
  case ParamType::int_list: return ParamType::integer;
  case ParamType::float_list: return ParamType::floating;
  case ParamType::string_list: return ParamType::string;
  default: return std::nullopt;
  }
}

// "64K", "1M", "4G" (binary multiples, as nccl-tests reads them) or a plain integer; nullopt otherwise.
std::optional<std::int64_t> parse_byte_size(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  std::int64_t multiplier = 1;
  switch (text.back()) {
  case 'K':
  case 'k': multiplier = std::int64_t{1} << 10; break;
  case 'M':
  case 'm': multiplier = std::int64_t{1} << 20; break;
  case 'G':
  case 'g': multiplier = std::int64_t{1} << 30; break;
  case 'T':
  case 't': multiplier = std::int64_t{1} << 40; break;
  default: break;
  }
  if (multiplier != 1) {
    text.remove_suffix(1);
  }
  std::int64_t value = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  if (value > std::numeric_limits<std::int64_t>::max() / multiplier) {
    return std::nullopt;  // 99999999999T
  }
  return value * multiplier;
}

// Text that reads as a number but not as a TOML value of its type: beyond the range of a 64-bit integer
// (9223372036854775808) or of a double (1e309). Says so, instead of "got string".
std::string out_of_range_hint(const json::Value& v) {
  if (!v.is_string()) {
    return {};
  }
  const std::string& s = v.as_string();
  if (s.empty() || s.size() > 400) {
    return {};
  }
  std::size_t used = 0;
  const bool digits = s.find_first_not_of("+-0123456789") == std::string::npos;
  try {
    (void)std::stod(s, &used);
  } catch (const std::out_of_range&) {
    return s + " is beyond the range of a 64-bit float (about ±1.8e308)";
  } catch (const std::exception&) {
    return {};
  }
  if (used != s.size()) {
    const bool sized = s.size() > 1 && std::string("KkMmGgTt").find(s.back()) != std::string::npos &&
                       s.find_first_not_of("0123456789") == s.size() - 1;
    return sized && !parse_byte_size(s) ? s + " is more bytes than a 64-bit integer holds" : std::string();
  }
  if (digits) {
    return s + " is beyond the range of a 64-bit integer (-9223372036854775808..9223372036854775807)";
  }
  return {};
}

// Converts a scalar to `type`; nullopt when it cannot. `raw` is the --set text, if any; integers in bytes
// ("B") also accept size suffixes.
std::optional<json::Value> coerce_scalar(ParamType type, const json::Value& v, const std::string& raw,
                                         const std::string& unit = {}) {
  switch (type) {
  case ParamType::boolean:
    if (v.is_bool()) {
      return v;
    }
    return std::nullopt;
  case ParamType::integer:
    if (v.is_int()) {
      return v;
    }
    if (unit == "B" && v.is_string()) {
      if (auto bytes = parse_byte_size(v.as_string())) {
        return json::Value(*bytes);  // nullopt also on overflow
      }
    }
    if (v.is_double()) {  // 2e3 is a fine way to write 2000
      const double d = v.as_number();
      if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.2e18) {
        return json::Value(static_cast<std::int64_t>(d));
      }
    }
    return std::nullopt;
  case ParamType::floating:
    if (v.is_number() && !std::isnan(v.as_number())) {
      return json::Value(v.as_number());  // nan compares false
    }
    return std::nullopt;
  case ParamType::string:
    if (v.is_string()) {
      return v;
    }
    if (!raw.empty()) {
      return json::Value(raw);  // --set name=123 means the string "123"
    }
    return std::nullopt;
  default: return std::nullopt;
  }
}

std::string a_or_an(ParamType type) {
  switch (type) {
  case ParamType::boolean: return "a boolean (true or false)";
  case ParamType::integer: return "an integer";
  case ParamType::floating: return "a number";
  case ParamType::string: return "a string";
  case ParamType::int_list: return "a list of integers";
  case ParamType::float_list: return "a list of numbers";
  case ParamType::string_list: return "a list of strings";
  }
  return "?";
}

std::optional<std::string> check_choices(const ParamSpec& spec, const json::Value& value) {
  if (spec.choices.empty()) {
    return std::nullopt;
  }
  auto check_one = [&](const std::string& s) -> std::optional<std::string> {
    for (const std::string& c : spec.choices) {
      if (c == s) {
        return std::nullopt;
      }
    }
    std::string message = "'" + s + "' is not one of " + text::join(spec.choices, ", ");
    const auto matches = text::close_matches(s, spec.choices, 3);
    if (!matches.empty()) {
      message += "; " + text::did_you_mean(matches);
    }
    return message;
  };
  if (value.is_string()) {
    return check_one(value.as_string());
  }
  if (value.is_array()) {
    for (const json::Value& element : value.as_array()) {
      if (!element.is_string()) {
        continue;  // choices constrain strings (abi/v1.h); a number is not compared
      }
      if (auto problem = check_one(element.as_string())) {
        return problem;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool valid_config_key(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') {
    return false;
  }
  for (const char c : key) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) {
      return false;
    }
  }
  return key.find("..") == std::string_view::npos;
}

Expected<ConfigEntry> parse_set_argument(std::string_view argument) {
  const std::size_t eq = argument.find('=');
  if (eq == std::string_view::npos) {
    return usage_failure("--set " + std::string(argument) + ": expected KEY=VALUE, e.g. --set spin.us=2000");
  }
  const std::string key = text::trim(argument.substr(0, eq));
  const std::string raw = text::trim(argument.substr(eq + 1));
  if (!valid_config_key(key)) {
    return usage_failure("--set " + std::string(argument) + ": '" + key +
                         "' is not a config key (letters, digits, '_', '-', separated by dots)");
  }
  if (raw.empty()) {
    return usage_failure("--set " + std::string(argument) + ": no value after '='");
  }

  ConfigEntry entry{key, {}, {"--set", {}, 0, 0, "--set " + std::string(argument)}, raw};
  if (auto parsed = parse_toml_value(raw)) {
    entry.value = std::move(parsed.value());
  } else if (raw.find(',') != std::string::npos) {
    json::Array list;
    for (const std::string& part : text::split(raw, ',')) {
      const std::string element = text::trim(part);
      auto v = parse_toml_value(element);
      list.push_back(v ? std::move(v.value()) : json::Value(element));
    }
    entry.value = std::move(list);
  } else {
    entry.value = raw;
  }
  return entry;
}

namespace {

// Says how sizes work when a value with a size suffix ("64K") reaches an integer key that is not in bytes.
std::string size_suffix_hint(const ParamSpec& spec, const json::Value& value) {
  const bool integers = spec.type == ParamType::integer || spec.type == ParamType::int_list;
  if (!integers || spec.unit == "B") {
    return {};
  }
  const auto is_size = [](const json::Value& v) { return v.is_string() && parse_byte_size(v.as_string()); };
  const bool any =
      value.is_array() ? std::any_of(value.as_array().begin(), value.as_array().end(), is_size) : is_size(value);
  if (!any) {
    return {};
  }
  return "; size suffixes (K, M, G, T) are accepted only by keys in bytes (unit B), and " + spec.key + " is " +
         (spec.unit.empty() ? "a plain number" : "in " + spec.unit) + ": write the number itself";
}

}  // namespace

Expected<json::Value> coerce(const ParamSpec& spec, const ConfigEntry& entry) {
  auto mismatch = [&] {
    if (const std::string range = out_of_range_hint(entry.value); !range.empty()) {  // a number, just too large
      return usage_failure("config key '" + spec.key + "' (" + entry.where.describe() + "): " + range +
                           "; it expects " + a_or_an(spec.type));
    }
    return usage_failure("config key '" + spec.key + "' expects " + a_or_an(spec.type) + ", got " +
                         describe_value(entry.value) + " (" + entry.where.describe() + ")" +
                         size_suffix_hint(spec, entry.value));
  };
  json::Value result;
  if (const auto element = element_type(spec.type)) {
    json::Array list;
    if (entry.value.is_array()) {
      for (const json::Value& v : entry.value.as_array()) {
        auto converted = coerce_scalar(*element, v, v.is_string() ? v.as_string() : std::string(), spec.unit);
        if (!converted) {
          return mismatch();
        }
        list.push_back(std::move(*converted));
      }
    } else {
      auto converted = coerce_scalar(*element, entry.value, entry.raw_text, spec.unit);
      if (!converted) {
        return mismatch();
      }
      list.push_back(std::move(*converted));
    }
    result = std::move(list);
  } else {
    // A list is never a scalar, except that a --set text with commas may be meant as one string.
    auto converted = entry.value.is_array() && spec.type != ParamType::string
                         ? std::nullopt
                         : coerce_scalar(spec.type, entry.value, entry.raw_text, spec.unit);
    if (!converted) {
      return mismatch();
    }
    result = std::move(*converted);
  }
  if (auto problem = check_choices(spec, result)) {
    return usage_failure("config key '" + spec.key + "': " + *problem + " (" + entry.where.describe() + ")");
  }
  return result;
}

// Resolution -------------------------------------------------------------------------------------------------

const ResolvedEntry* ResolvedConfig::find(std::string_view key) const {
  for (const ResolvedEntry& e : entries_) {
    if (e.spec->key == key) {
      return &e;
    }
  }
  return nullptr;
}

json::Object ResolvedConfig::to_json() const {
  json::Object out;
  for (const ResolvedEntry& e : entries_) {
    if (!e.value.is_null()) {
      out.set(e.spec->key, e.value);
    }
  }
  return out;
}

json::Object ResolvedConfig::sources_to_json() const {
  json::Object out;
  for (const ResolvedEntry& e : entries_) {
    if (e.is_set) {
      out.set(e.spec->key, e.where.describe());
    }
  }
  return out;
}

std::vector<std::string> ResolvedConfig::overrides() const {
  std::vector<std::string> out;
  for (const ResolvedEntry& e : entries_) {
    if (e.is_set) {
      out.push_back(e.spec->key + "=" + to_toml_literal(e.value));
    }
  }
  return out;
}

struct ConfigResolver {
  static ConfigResolution run(const std::vector<ParamSpec>& schema, const std::vector<const ConfigLayer*>& layers,
                              const std::string& hint) {
    ConfigResolution result;
    auto& entries = result.config.entries_;
    std::vector<std::string> keys;
    for (const ParamSpec& spec : schema) {
      entries.push_back({&spec, spec.default_value.value_or(json::Value()), {"default", {}, 0, 0, {}}, false});
      keys.push_back(spec.key);
    }
    for (const ConfigLayer* layer : layers) {
      for (const ConfigEntry& entry : layer->entries) {
        auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.spec->key == entry.key; });
        if (it == entries.end()) {
          result.errors.push_back(unknown_key_message(entry, keys, hint));
          continue;
        }
        auto value = coerce(*it->spec, entry);
        if (!value) {
          result.errors.push_back(value.error().message);
          continue;
        }
        it->value = std::move(value.value());
        it->where = entry.where;
        it->is_set = true;
      }
    }
    for (const ResolvedEntry& e : entries) {
      if (e.spec->required && !e.is_set) {
        result.errors.push_back("config key '" + e.spec->key + "' is required: set it with --set " + e.spec->key +
                                "=... or in a --config file");
      }
    }
    return result;
  }

  static std::string unknown_key_message(const ConfigEntry& entry, const std::vector<std::string>& keys,
                                         const std::string& hint) {
    std::string message = "unknown config key '" + entry.key + "' (" + entry.where.describe() + ")";
    auto matches = text::close_matches(entry.key, keys, 3);
    if (matches.empty()) {
      // "nosuchkey" under "spin." still suggests the keys of that section.
      const auto dot = entry.key.rfind('.');
      if (dot != std::string::npos) {
        const std::string section = entry.key.substr(0, dot + 1);
        for (const std::string& k : keys) {
          if (text::starts_with(k, section) && matches.size() < 3) {
            matches.push_back(k);
          }
        }
      }
    }
    if (!matches.empty()) {
      message += ": " + text::did_you_mean(matches);
    }
    if (!hint.empty()) {
      message += " (" + hint + ")";
    }
    return message;
  }
};

ConfigResolution resolve_config(const std::vector<ParamSpec>& schema, const std::vector<const ConfigLayer*>& layers,
                                const std::string& describe_hint) {
  return ConfigResolver::run(schema, layers, describe_hint);
}

std::string join_errors(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& e : errors) {
    out += (out.empty() ? "" : "\ndgxhost: error: ") + e;
  }
  return out;
}

}  // namespace dgx
