#include "host_bound.hpp"

#include <algorithm>
#include <cstddef>
#include <variant>

namespace dgx::llm::detail {

namespace {

/// Kernels the host issues for an op: one per GEMM of a grouped GEMM (Transformer Engine launches each local
/// expert's GEMM), per kernel of a memory-bound op, per kernel of attention (AttentionShape::kernels) and of a chunked
/// scan, one per collective.
double host_kernels(const Op& op) {
  struct Count {
    double operator()(const GemmShape& g) const { return static_cast<double>(g.groups); }
    double operator()(const AttentionShape& a) const { return a.kernels(); }
    double operator()(const ScanShape& s) const { return s.kernels; }
    double operator()(const MemoryShape& m) const { return m.kernels; }
    double operator()(const CollectiveShape& /*unused*/) const { return 1; }
  };
  return std::visit(Count{}, op.shape);
}

/// The op after which the forward's host waits for the GPU: the EP dispatch, or the permutation where there is
/// no all-to-all; ops.size() when the pass has neither.
std::size_t synchronisation(const std::vector<Op>& ops) {
  std::size_t found = ops.size();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == "ep_dispatch" || (found == ops.size() && ops[i].name == "permute")) {
      found = i;
    }
  }
  return found;
}

}  // namespace

double host_bound_seconds(const std::vector<Op>& ops, const std::vector<double>& seconds, const Software& software,
                          GraphScopes graphs, bool forward) {
  const double launch = software.host_op_us * 1e-6;
  if (launch <= 0 || ops.empty()) {
    return 0;
  }
  const std::size_t sync = forward ? synchronisation(ops) : ops.size();
  double host = 0;
  double gpu = 0;
  double busy = 0;
  bool in_graph = false;
  for (std::size_t step = 0; step < ops.size(); ++step) {
    // From the op after the synchronisation round to it: one layer's queue between two synchronisations.
    const std::size_t i = sync < ops.size() ? (sync + 1 + step) % ops.size() : step;
    const bool captured = has_scope(graphs, ops[i].scope);
    host += captured ? (in_graph ? 0.0 : launch) : host_kernels(ops[i]) * launch;
    in_graph = captured;
    gpu = (sync < ops.size() ? std::max(gpu, host) : gpu) + seconds[i];
    busy += seconds[i];
  }
  if (sync < ops.size()) {
    return gpu - busy;
  }
  return std::max(0.0, host - busy);
}

}  // namespace dgx::llm::detail
