// The fake host lives in the SDK (<dgx/sdk/testing/fake_host.hpp>), where plugin authors find it too. This header
// keeps the name the project's tests use: dgx::testing::FakeHost.
#pragma once

#include <dgx/sdk/testing/fake_host.hpp>

namespace dgx::testing {
using FakeHost = sdk::testing::FakeHost;
}  // namespace dgx::testing
