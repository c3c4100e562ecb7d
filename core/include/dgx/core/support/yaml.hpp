// YAML text of the host's JSON value, for files other tools read as YAML: the Kubernetes manifest that
// `dgxhost launch --scheduler kubernetes` writes. Block style, as kubectl prints it, with every string that a YAML
// 1.1 or 1.2 reader (kubectl's go-yaml, PyYAML) could take for something else ("yes", "1.0", "null", "-x",
// "a: b") double-quoted, so that what is read back is exactly the value written.
#pragma once

#include <string>

#include "dgx/json/json.hpp"

namespace dgx::yaml {

/// `value` as a YAML block document ending in a newline. Objects keep their key order; empty ones are `{}` and
/// `[]`; a multi-line string of printable ASCII is a literal block (`|`), any other string that is not safe
/// plain is double-quoted with escapes. Strings must be valid UTF-8 (YAML text is Unicode).
std::string write(const json::Value& value);

/// One string as a YAML scalar on one line: plain when no reader can take it for anything else, else
/// double-quoted.
std::string quoted(std::string_view text);

}  // namespace dgx::yaml
