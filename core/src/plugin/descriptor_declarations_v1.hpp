// Private to the ABI 1.x adapter: reading what a workload of ABI 1.1 declares of its rows (metric_descs,
// identity_keys, charts; abi/v1.h), after its parameters.
#pragma once

#include <optional>
#include <string>

#include <dgx/plugin.h>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx::detail {

/// Reads and checks the declarations of `w` into info.declarations (nothing for a descriptor of ABI 1.0, whose
/// struct_size ends before them). A failure names the workload (`named`), the field and its index, what was
/// found and what was expected: the plugin is disabled with it.
std::optional<Failure> read_declarations_v1(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info);

}  // namespace dgx::detail
