// Reading TOML: config files, presets (files or embedded in plugins) and --set literals, into flat dotted keys
// (layered_config.hpp), and writing a value back as a TOML literal. Every document passes a lexical nesting check
// before toml++ sees it, and files are read only when they are small regular files.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

/// A parsed TOML config document: its config keys, and its [preset] table (workload, summary) if any.
struct TomlConfig {
  ConfigLayer layer;
  json::Object preset;
};

/// Config files are small: a larger one is refused (so is anything that is not a regular file, e.g. a FIFO).
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{4} << 20;

/// Parses a TOML document of config keys. Nested tables flatten to dotted keys ("parallel.tp"). Errors name
/// `file` (or `origin` when there is no file) with line and column. A document nesting deeper than any config
/// needs (a dotted key of more than 32 parts, brackets more than 32 deep) is refused before it is parsed.
Expected<TomlConfig> parse_toml_config(std::string_view text, const std::string& origin, const std::string& file);

/// Reads and parses a TOML config file: a regular file of at most kMaxConfigFileBytes (a directory, FIFO or
/// device is refused without blocking).
Expected<TomlConfig> load_toml_config(const std::string& path, const std::string& origin);

/// Parses a TOML value literal such as "2000", "\"bf16\"" or "[8, 16]".
Expected<json::Value> parse_toml_value(std::string_view literal);

/// Writes a value as a TOML literal (the inverse of parse_toml_value for config values): libs/json's.
using json::to_toml_literal;

}  // namespace dgx
