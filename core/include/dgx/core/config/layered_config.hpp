// Layered configuration: schema defaults < preset < --config file < --set, validated against the workload's
// parameter schema. Every value remembers where it came from, so errors name the file:line:col or the --set
// argument, and results record which layer set each key. Reading TOML into layers is toml_reader.hpp's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

enum class ParamType { boolean, integer, floating, string, int_list, float_list, string_list };

/// "bool", "int", "float", "string", "int list", ...
std::string_view to_string(ParamType type);

/// The host's view of one parameter of a workload (or of the host itself, e.g. runner.*).
struct ParamSpec {
  std::string key;
  ParamType type = ParamType::string;
  std::optional<json::Value> default_value;  // already of `type`
  std::string help;
  std::vector<std::string> choices;  // allowed strings; empty: any
  std::string unit;
  bool required = false;
  std::string alias;  // one-letter command-line option, e.g. "b" for -b
};

struct SourceLocation {
  std::string origin;  // "default", "preset 'NAME'", "config file", "--set"
  std::string file;    // empty unless the value came from a file
  int line = 0;
  int column = 0;
  std::string argument;  // the command-line argument as typed, e.g. "--set spin.us=2000" or "-b 8"

  /// "configs/workloads/x.toml:3:5", "--set spin.us=abc", or the origin.
  [[nodiscard]] std::string describe() const;
};

struct ConfigEntry {
  std::string key;
  json::Value value;
  SourceLocation where;
  std::string raw_text;  // --set only: the text after '=', for string-typed keys given something else
};

/// One layer: the entries of a preset, a config file, or all --set arguments.
struct ConfigLayer {
  std::string name;
  std::vector<ConfigEntry> entries;
};

/// A dotted config key: letters, digits, '_' and '-', separated by single dots ("parallel.tp").
bool valid_config_key(std::string_view key);

/// Parses one --set argument "key=value". The value is read as a TOML value; text that is not valid TOML is a
/// string ("system=h100-sxm"), and comma-separated text is a list ("precision=bf16,fp8"). Integers whose
/// unit is bytes ("B") also accept 64K, 1M, 2G.
Expected<ConfigEntry> parse_set_argument(std::string_view argument);

/// Converts `value` to the parameter's type (an integer where a float is expected, a scalar where a list is),
/// or explains why it cannot.
Expected<json::Value> coerce(const ParamSpec& spec, const ConfigEntry& entry);

struct ResolvedEntry {
  const ParamSpec* spec = nullptr;
  json::Value value;  // null when the key has no default and no layer set it
  SourceLocation where;
  bool is_set = false;  // a layer (not the default) gave the value
};

class ResolvedConfig {
public:
  [[nodiscard]] const ResolvedEntry* find(std::string_view key) const;
  [[nodiscard]] const std::vector<ResolvedEntry>& entries() const { return entries_; }
  /// Every key with a value, in schema order.
  [[nodiscard]] json::Object to_json() const;
  /// Key -> where its value came from, for keys a layer set.
  [[nodiscard]] json::Object sources_to_json() const;
  /// "key=value" for every key a layer set, for the report header.
  [[nodiscard]] std::vector<std::string> overrides() const;

private:
  friend struct ConfigResolver;
  std::vector<ResolvedEntry> entries_;
};

struct ConfigResolution {
  ResolvedConfig config;
  std::vector<std::string> errors;  // one line each; empty when the configuration is valid
};

/// Several configuration errors as one message for the logger, which prefixes its first line: every further error
/// gets the same "dgxhost: error: " prefix, so each reads (and greps) as an error of its own.
std::string join_errors(const std::vector<std::string>& errors);

/// Validates and merges `layers` (lowest precedence first) against `schema`. The schema's ParamSpecs must
/// outlive the result. `describe_hint` is appended to unknown-key errors (e.g. how to list the keys).
ConfigResolution resolve_config(const std::vector<ParamSpec>& schema, const std::vector<const ConfigLayer*>& layers,
                                const std::string& describe_hint = {});

}  // namespace dgx
