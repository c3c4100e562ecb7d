// The host's names for the SDK's UTC timestamps (<dgx/sdk/utc_time.hpp>, the one home of the format).
#pragma once

#include <dgx/sdk/utc_time.hpp>

namespace dgx {

using sdk::iso_utc;
using sdk::iso_utc_now;
using sdk::parse_iso_utc;

}  // namespace dgx
