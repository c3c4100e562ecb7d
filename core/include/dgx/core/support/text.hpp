// The host's text helpers are the SDK's text toolkit (<dgx/sdk/text.hpp>): one implementation of suggestions,
// joining and number formatting for the host and the plugins. Host code calls them as text::join(...).
#pragma once

#include <dgx/sdk/text.hpp>

namespace dgx {
namespace text = sdk::text;
}  // namespace dgx
