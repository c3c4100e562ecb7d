#include "dgx/llm/ops.hpp"

#include <sstream>

namespace dgx::llm {

std::string_view to_string(Collective collective) {
  switch (collective) {
  case Collective::all_reduce: return "all_reduce";
  case Collective::all_gather: return "all_gather";
  case Collective::reduce_scatter: return "reduce_scatter";
  case Collective::all_to_all: return "all_to_all";
  case Collective::send_recv: return "send_recv";
  }
  return "?";
}

namespace {

struct KeyWriter {
  std::ostringstream& out;

  void operator()(const GemmShape& s) const {
    out << " m=" << s.m << " n=" << s.n << " k=" << s.k;
    if (s.groups != 1) {
      out << " groups=" << s.groups;
    }
    if (s.accumulate_bytes > 0) {
      out << " accumulate=" << s.accumulate_bytes;
    }
    if (s.weight_bytes > 0) {
      out << " weights=" << s.weight_bytes;
    }
  }
  void operator()(const AttentionShape& s) const {
    out << " b=" << s.batch << " h=" << s.heads << " kv=" << s.kv_heads << " q=" << s.q_len << " k=" << s.kv_len
        << " d=" << s.head_dim << " mask=" << s.mask_fraction << " steps=" << s.steps;
  }
  void operator()(const ScanShape& s) const {
    out << " flops=" << s.flops << " bytes=" << s.bytes << " tiles=" << s.tiles << " kernels=" << s.kernels;
  }
  void operator()(const MemoryShape& s) const { out << " bytes=" << s.bytes << " kernels=" << s.kernels; }
  void operator()(const CollectiveShape& s) const {
    out << " " << to_string(s.collective) << " bytes=" << s.bytes << " ranks=" << s.placement.ranks
        << " local=" << s.placement.ranks_per_domain;
  }
};

}  // namespace

std::string Op::key() const {
  std::ostringstream out;
  out.precision(6);
  out << name;
  if (!is_communication()) {
    out << "." << to_string(pass);
  }
  if (std::holds_alternative<GemmShape>(shape) || std::holds_alternative<AttentionShape>(shape)) {
    out << " " << to_string(precision);
  }
  std::visit(KeyWriter{out}, shape);
  return out.str();
}

}  // namespace dgx::llm
