// Shared by the llm-model tests of op lists: finding an op by name and pass, and summing GEMM FLOPs.
#pragma once

#include "dgx/llm/layer_ops.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace dgx::llm::testing {

inline const Op* op_named(const std::vector<Op>& ops, std::string_view name, Pass pass = Pass::forward) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name && op.pass == pass; });
  return it == ops.end() ? nullptr : &*it;
}

inline bool has_op(const std::vector<Op>& ops, std::string_view name) {
  return std::any_of(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name; });
}

/// 2·m·n·k·groups over every GEMM of the list.
inline double gemm_flops_of(const std::vector<Op>& ops) {
  double flops = 0;
  for (const Op& op : ops) {
    if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
      flops += 2.0 * g->m * g->n * g->k * g->groups;
    }
  }
  return flops;
}

inline double gemm_flops_of(const OpList& ops) { return gemm_flops_of(ops.forward) + gemm_flops_of(ops.backward); }

}  // namespace dgx::llm::testing
