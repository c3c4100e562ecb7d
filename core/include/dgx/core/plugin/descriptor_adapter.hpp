// Adapters from a plugin's descriptor to the host's own types (LoadedPlugin, WorkloadInfo, ParamSpec): one per
// major version of the ABI, chosen by the major version the plugin answered with, in the pattern of NCCL's
// src/plugin/net.cc + net_vN.cc. Each adapter validates everything it reads, so the host never trusts a field it
// has not checked. When ABI 2 comes, abi/v1.h is frozen, descriptor_adapter_v1.cpp keeps lifting v1
// plugins, and descriptor_adapter_v2.cpp joins it.
#pragma once

#include <cstdint>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/plugin/plugin_open.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Lifts an opened plugin's descriptor into host types; a failure names what was expected and found.
using DescriptorAdapter = Expected<LoadedPlugin> (*)(const OpenedPlugin& opened);

/// The adapter for ABI major version `major`, or nullptr when this host has none.
DescriptorAdapter descriptor_adapter(std::uint32_t major);

/// ABI 1.x (descriptor_adapter_v1.cpp): a dgx_plugin_desc of <dgx/abi/v1.h>.
Expected<LoadedPlugin> lift_descriptor_v1(const OpenedPlugin& opened);

}  // namespace dgx
