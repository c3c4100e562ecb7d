// Reading TOML: config files, presets (files or embedded in plugins) and --set literals, into flat dotted keys.
// Every document passes a lexical nesting check before toml++ sees it (see nesting_problem), and files are read
// only when they are small regular files (files.hpp).
#include "dgx/core/config/toml_reader.hpp"

#include "dgx/core/config/layered_config.hpp"

#include <algorithm>
#include <cctype>

#include <dgx/sdk/toml_literal.hpp>
#include <toml++/toml.h>

#include "dgx/core/support/files.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/json/nesting.hpp"

namespace dgx {

namespace {

// Nesting ------------------------------------------------------------------------------------------------------

// toml++ builds and frees nested tables recursively: a 200 KB file of one dotted key ("a.a.a...") overflows the
// stack inside the parser, and a 30 KB one overflowed ours. So before parsing, a lexical scan bounds the two
// ways a document nests: the segments of one dotted key (in a [header], before '=', or in an inline table) and
// the nesting of brackets. The scan only needs to be conservative: every '.' outside strings and comments counts
// until a character that cannot be part of a key ('=', ',', a bracket, a newline) starts a new count. Real
// configs stay far below both limits.
// Both limits are the one every reader has (nesting.hpp).
constexpr std::size_t kMaxKeySegments = kMaxNesting;
constexpr std::size_t kMaxBrackets = kMaxNesting;

class NestingScan {
public:
  explicit NestingScan(std::string_view text) : text_(text) {}

  // What nests too deeply (the line is line()); nullopt when nothing does.
  std::optional<std::string> run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') {
        skip_comment();
      } else if (c == '"' || c == '\'') {
        skip_string(c);
      } else if (c == '.') {
        ++i_;
        if (++segments_ > kMaxKeySegments) {
          return "a dotted key has more than " + std::to_string(kMaxKeySegments) + " parts";
        }
      } else {
        if (auto problem = structure(c)) {
          return problem;
        }
        ++i_;
      }
    }
    return std::nullopt;
  }

  [[nodiscard]] std::size_t line() const { return line_; }

private:
  std::optional<std::string> structure(char c) {
    switch (c) {
    case '\n': ++line_; [[fallthrough]];
    case '=':
    case ',': segments_ = 1; break;
    case '[':
    case '{':
      segments_ = 1;
      if (++depth_ > kMaxBrackets) {
        return nests_too_deep("arrays, tables or inline tables");
      }
      break;
    case ']':
    case '}':
      segments_ = 1;
      if (depth_ > 0) {
        --depth_;
      }
      break;
    default: break;
    }
    return std::nullopt;
  }

  void skip_comment() {
    while (i_ < text_.size() && text_[i_] != '\n') {
      ++i_;
    }
  }

  std::size_t quote_run(char quote) const {
    std::size_t n = 0;
    while (i_ + n < text_.size() && text_[i_ + n] == quote) {
      ++n;
    }
    return n;
  }

  // Skips a string of any of TOML's four kinds. A multi-line string ends at a run of 3 to 5 quotes (up to two of
  // them belong to the content); basic strings have backslash escapes.
  void skip_string(char quote) {
    const bool multi_line = quote_run(quote) >= 3;
    if (!multi_line && quote_run(quote) == 2) {  // "" or '': an empty string
      i_ += 2;
      return;
    }
    i_ += multi_line ? 3 : 1;
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\\' && quote == '"') {
        if (i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
          ++line_;
        }
        i_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!multi_line) {
          return;  // unterminated: toml++ reports it
        }
        ++line_;
      }
      if (c == quote) {
        const std::size_t run = quote_run(quote);
        if (!multi_line || run >= 3) {
          i_ += multi_line ? std::min<std::size_t>(run, 5) : 1;
          return;
        }
        i_ += run;
        continue;
      }
      ++i_;
    }
  }

  std::string_view text_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t segments_ = 1;
  std::size_t depth_ = 0;
};

// Parses a whole document after the nesting check; `name` is what errors call it (a file, or an origin).
Expected<toml::table> parse_document(std::string_view text, const std::string& name) {
  NestingScan scan(text);
  if (auto problem = scan.run()) {
    return usage_failure(name + ": " + nesting_refusal(scan.line(), *problem));
  }
  try {
    return toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return usage_failure(name + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column) +
                         ": invalid TOML: " + std::string(e.description()));
  }
}

// TOML -> JSON values ------------------------------------------------------------------------------------------

std::optional<json::Value> to_value(const toml::node& node, std::string& error) {
  if (const auto* i = node.as_integer()) {
    return json::Value(i->get());
  }
  if (const auto* f = node.as_floating_point()) {
    return json::Value(f->get());
  }
  if (const auto* b = node.as_boolean()) {
    return json::Value(b->get());
  }
  if (const auto* s = node.as_string()) {
    return json::Value(s->get());
  }
  if (const auto* a = node.as_array()) {
    json::Array out;
    for (const toml::node& element : *a) {
      if (element.is_table() || element.is_array()) {
        error = "nested arrays and arrays of tables are not supported as config values";
        return std::nullopt;
      }
      auto v = to_value(element, error);
      if (!v) {
        return std::nullopt;
      }
      out.push_back(std::move(*v));
    }
    return json::Value(std::move(out));
  }
  error = "dates and times are not supported as config values";
  return std::nullopt;
}

SourceLocation location(const std::string& origin, const std::string& file, const toml::node& node) {
  return {origin, file, static_cast<int>(node.source().begin.line), static_cast<int>(node.source().begin.column), {}};
}

// Nested tables become dotted keys. The nesting check bounds the depth; the guard here is a second line.
struct Flattener {
  static constexpr int kMaxDepth = 256;
  const std::string& origin;
  const std::string& file;
  ConfigLayer& layer;
  std::vector<std::string> errors;

  void table(const toml::table& t, const std::string& prefix, int depth = 0) {
    if (depth > kMaxDepth) {
      errors.push_back(location(origin, file, t).describe() + ": tables nest more than " + std::to_string(kMaxDepth) +
                       " deep");
      return;
    }
    for (const auto& [key, node] : t) {
      const std::string full = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      if (const auto* sub = node.as_table()) {
        table(*sub, full, depth + 1);
        continue;
      }
      std::string error;
      auto value = to_value(node, error);
      if (!value) {
        errors.push_back(location(origin, file, node).describe() + ": config key '" + full + "': " + error);
        continue;
      }
      layer.entries.push_back({full, std::move(*value), location(origin, file, node), {}});
    }
  }
};

// The [preset] table: workload, summary, description. TOML puts every key after a [table] header into that
// table, so config keys written after [preset] land here by mistake: say so instead of silently ignoring them.
std::optional<Failure> read_preset_table(const toml::node& preset, const std::string& origin, const std::string& file,
                                         json::Object& out) {
  const toml::table* table = preset.as_table();
  if (table == nullptr) {
    return usage_failure(location(origin, file, preset).describe() +
                         ": 'preset' must be a table ([preset] with workload and summary)");
  }
  for (const auto& [key, node] : *table) {
    if (key.str() != "workload" && key.str() != "summary" && key.str() != "description") {
      return usage_failure(location(origin, file, node).describe() + ": '" + std::string(key.str()) +
                           "' is not a preset field (workload, summary, description); config keys must come before "
                           "any [table] header, so write the preset fields as preset.workload = ... at the top");
    }
    std::string error;
    if (auto v = to_value(node, error)) {
      out.set(std::string(key.str()), std::move(*v));
    }
  }
  return std::nullopt;
}

}  // namespace

Expected<TomlConfig> parse_toml_config(std::string_view text, const std::string& origin, const std::string& file) {
  auto root = parse_document(text, file.empty() ? origin : file);
  if (!root) {
    return root.error();
  }
  TomlConfig result;
  result.layer.name = origin;
  if (const toml::node* preset = root->get("preset")) {
    if (auto failure = read_preset_table(*preset, origin, file, result.preset)) {
      return *failure;
    }
    root->erase("preset");
  }
  Flattener flattener{origin, file, result.layer, {}};
  flattener.table(root.value(), "");
  if (!flattener.errors.empty()) {
    return usage_failure(join_errors(flattener.errors));
  }
  // toml++ keeps tables sorted by key; file order reads better in listings and errors.
  std::stable_sort(result.layer.entries.begin(), result.layer.entries.end(), [](const auto& a, const auto& b) {
    return std::pair(a.where.line, a.where.column) < std::pair(b.where.line, b.where.column);
  });
  return result;
}

Expected<TomlConfig> load_toml_config(const std::string& path, const std::string& origin) {
  auto content = read_regular_file(path, kMaxConfigFileBytes, "config file");
  if (!content) {
    return content.error();
  }
  return parse_toml_config(content.value(), origin, path);
}

Expected<json::Value> parse_toml_value(std::string_view literal) {
  const std::string shown = "'" + std::string(literal) + "'";
  auto table = parse_document("v = " + std::string(literal), "TOML value " + shown);
  if (!table) {
    const std::string& m = table.error().message;
    const auto reason = m.find("invalid TOML: ");
    return usage_failure("invalid TOML value " + shown +
                         (reason != std::string::npos ? ": " + m.substr(reason + 14) : ": " + m));
  }
  const toml::node* node = table->get("v");
  if (node == nullptr || table->size() != 1) {
    return usage_failure("invalid TOML value " + shown);
  }
  std::string error;
  auto value = to_value(*node, error);
  if (!value) {
    return usage_failure("invalid TOML value " + shown + ": " + error);
  }
  return std::move(*value);
}

}  // namespace dgx
