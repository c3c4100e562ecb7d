// Test helper: whether a text (a script, a message, a report) contains a part.
#pragma once

#include <string>

namespace dgx::testing {

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace dgx::testing
