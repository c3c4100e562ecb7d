#include "dgx/llm/cuda/attention.hpp"

#include "cudnn_graph.hpp"
#include "dgx/llm/cuda/check.hpp"

#include <cmath>
#include <limits>

namespace dgx::llm::cuda {

using detail::BackendDescriptor;
using detail::Dims;
using detail::GraphBuilder;

namespace {

constexpr std::size_t kAlign = 256;
std::size_t align_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

cudnnHandle_t raw(const Cudnn& cudnn) { return static_cast<cudnnHandle_t>(cudnn.get()); }

/// Shapes and strides of the graphs' tensors. cuDNN's dimension order is always [b, h, s, d]; the strides say the
/// data is token-major. K (and V in the backward) enter as their transposes [b, h, d, s] by swapping strides.
struct Layouts {
  explicit Layouts(const AttentionConfig& c)
      : q_dims{c.batch, c.q_heads, c.q_len, c.head_dim}, q_strides{c.q_len * c.q_stride, c.head_dim, c.q_stride, 1},
        o_strides{c.q_len * c.o_stride, c.head_dim, c.o_stride, 1}, kv_dims{c.batch, c.kv_heads, c.kv_len, c.head_dim},
        kv_strides{c.kv_len * c.kv_stride, c.head_dim, c.kv_stride, 1},
        kv_t_dims{c.batch, c.kv_heads, c.head_dim, c.kv_len},
        kv_t_strides{c.kv_len * c.kv_stride, c.head_dim, 1, c.kv_stride}, scores{c.batch, c.q_heads, c.q_len, c.kv_len},
        scores_t{c.batch, c.q_heads, c.kv_len, c.q_len},
        scores_t_strides{c.q_heads * c.q_len * c.kv_len, c.q_len * c.kv_len, 1, c.kv_len},
        rows{c.batch, c.q_heads, c.q_len, 1}, full_q{c.batch, c.q_heads, c.q_len, c.head_dim},
        full_kv{c.batch, c.q_heads, c.kv_len, c.head_dim} {}

  Dims q_dims, q_strides, o_strides, kv_dims, kv_strides, kv_t_dims, kv_t_strides;
  Dims scores, scores_t, scores_t_strides, rows, full_q, full_kv;
};

/// The causal mask of cudnn-frontend's composite SDPA: keep score[i][j] where row i >= column j, else -inf.
std::int64_t causal_mask(GraphBuilder& g, const Layouts& l, std::int64_t scores, std::int64_t negative_infinity) {
  const std::int64_t row = g.intermediate(CUDNN_DATA_INT32, l.scores);
  const std::int64_t col = g.intermediate(CUDNN_DATA_INT32, l.scores);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, row, -1, -1, CUDNN_DATA_INT32, 2);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, col, -1, -1, CUDNN_DATA_INT32, 3);
  const std::int64_t keep = g.intermediate(CUDNN_DATA_BOOLEAN, l.scores);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, row, keep, col, -1, CUDNN_DATA_BOOLEAN);
  const std::int64_t masked = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, scores, masked, negative_infinity, keep);
  return masked;
}

/// scale · QKᵀ in FP32: the scores both passes start from.
std::int64_t scaled_scores(GraphBuilder& g, const Layouts& l, std::int64_t q, std::int64_t k, std::int64_t scale) {
  const std::int64_t s = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.matmul(q, k, s);
  const std::int64_t scaled = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_MUL, s, scaled, scale);
  return scaled;
}

/// The causal mask when the configuration has one; `negative_infinity` receives the id of its by-value scalar.
std::int64_t mask_if_causal(GraphBuilder& g, const Layouts& l, const AttentionConfig& c, std::int64_t scores,
                            std::int64_t& negative_infinity) {
  if (!c.causal) {
    return scores;
  }
  negative_infinity = g.scalar();
  return causal_mask(g, l, scores, negative_infinity);
}

struct ForwardGraph {
  std::int64_t q = 0, k = 0, v = 0, o = 0, stats = 0, scale = 0, negative_infinity = -1;
  detail::Plan plan;
};

struct BackwardGraph {
  std::int64_t q = 0, k = 0, v = 0, o = 0, d_o = 0, stats = 0, dq = 0, dk = 0, dv = 0;
  std::int64_t scale = 0, one = 0, negative_infinity = -1, softmax_sum = 0, dq_accum = 0;
  detail::Plan plan;
};

/// Adds the forward graph's tensors and nodes to `g`; returns the ids the execution binds.
ForwardGraph forward_graph(GraphBuilder& g, const AttentionConfig& c) {
  const Layouts l(c);
  ForwardGraph f;
  f.q = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.q_strides, false);
  f.k = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_t_dims, l.kv_t_strides, false);
  f.v = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_dims, l.kv_strides, false);
  f.o = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.o_strides, false);
  f.stats = g.tensor(CUDNN_DATA_FLOAT, l.rows, detail::packed_strides(l.rows), false);
  f.scale = g.scalar();

  const std::int64_t scaled = mask_if_causal(g, l, c, scaled_scores(g, l, f.q, f.k, f.scale), f.negative_infinity);
  // Softmax with statistics: stats = max + log(sum(exp(x - max))), P = exp(x - max) / sum, P in BF16 for PV.
  const std::int64_t max = g.intermediate(CUDNN_DATA_FLOAT, l.rows);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, scaled, max);
  const std::int64_t shifted = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_SUB, scaled, shifted, max);
  const std::int64_t e = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_EXP, shifted, e);
  const std::int64_t sum = g.intermediate(CUDNN_DATA_FLOAT, l.rows);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, sum);
  const std::int64_t log_sum = g.intermediate(CUDNN_DATA_FLOAT, l.rows);
  g.pointwise(CUDNN_POINTWISE_LOG, sum, log_sum);
  g.pointwise(CUDNN_POINTWISE_ADD, max, f.stats, log_sum);
  const std::int64_t p = g.intermediate(CUDNN_DATA_BFLOAT16, l.scores);
  g.pointwise(CUDNN_POINTWISE_DIV, e, p, sum);
  g.matmul(p, f.v, f.o);
  return f;
}

ForwardGraph build_forward(cudnnHandle_t handle, const AttentionConfig& c) {
  GraphBuilder g(handle);
  ForwardGraph f = forward_graph(g, c);
  f.plan = detail::make_plan(handle, g.build(), "the forward of " + c.describe());
  return f;
}

/// dK (or dV) from a [b, hq, s_kv, s_q] operand: straight into the output for multi-head attention, through a
/// full-head intermediate summed over each group's query heads for grouped-query attention.
void kv_gradient(GraphBuilder& g, const Layouts& l, const AttentionConfig& c, std::int64_t transposed,
                 std::int64_t other, std::int64_t out) {
  if (c.q_heads == c.kv_heads) {
    g.matmul(transposed, other, out);
    return;
  }
  const std::int64_t full = g.intermediate(CUDNN_DATA_BFLOAT16, l.full_kv);
  g.matmul(transposed, other, full);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, full, out);
}

BackwardGraph backward_graph(GraphBuilder& g, const AttentionConfig& c) {
  const Layouts l(c);
  BackwardGraph b;
  b.q = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.q_strides, false);
  b.k = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_t_dims, l.kv_t_strides, false);
  b.v = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_t_dims, l.kv_t_strides, false);
  b.o = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.o_strides, false);
  b.d_o = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.o_strides, false);
  b.stats = g.tensor(CUDNN_DATA_FLOAT, l.rows, detail::packed_strides(l.rows), false);
  b.dq = g.tensor(CUDNN_DATA_BFLOAT16, l.q_dims, l.q_strides, false);
  b.dk = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_dims, l.kv_strides, false);
  b.dv = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_dims, l.kv_strides, false);
  b.softmax_sum = g.tensor(CUDNN_DATA_FLOAT, l.rows, detail::packed_strides(l.rows), false);
  b.dq_accum = g.tensor(CUDNN_DATA_FLOAT, l.full_q, detail::packed_strides(l.full_q), false);
  b.scale = g.scalar();
  b.one = g.scalar();

  // softmax_sum = rowsum(dO ∘ O)
  const std::int64_t product = g.intermediate(CUDNN_DATA_FLOAT, l.full_q);
  g.pointwise(CUDNN_POINTWISE_MUL, b.d_o, product, b.o);
  const std::int64_t row_sum = g.intermediate(CUDNN_DATA_FLOAT, l.rows);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, product, row_sum);
  g.pointwise(CUDNN_POINTWISE_MUL, row_sum, b.softmax_sum, b.one);

  // P = exp(scale · QKᵀ − stats), masked; dV = Pᵀ dO
  const std::int64_t shifted = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_SUB, scaled_scores(g, l, b.q, b.k, b.scale), shifted, b.stats);
  const std::int64_t masked = mask_if_causal(g, l, c, shifted, b.negative_infinity);
  const std::int64_t p = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_EXP, masked, p);
  const std::int64_t p_t = g.tensor(CUDNN_DATA_BFLOAT16, l.scores_t, l.scores_t_strides, true);
  g.reshape(p, p_t);
  kv_gradient(g, l, c, p_t, b.d_o, b.dv);

  // dS = P ∘ (dO Vᵀ − softmax_sum) · scale; dK = dSᵀ Q; dQ = dS K (accumulated in FP32)
  const std::int64_t dp = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.matmul(b.d_o, b.v, dp);
  const std::int64_t centered = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_SUB, dp, centered, b.softmax_sum);
  const std::int64_t weighted = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_MUL, centered, weighted, p);
  const std::int64_t ds = g.intermediate(CUDNN_DATA_FLOAT, l.scores);
  g.pointwise(CUDNN_POINTWISE_MUL, weighted, ds, b.scale);
  const std::int64_t ds_t = g.tensor(CUDNN_DATA_BFLOAT16, l.scores_t, l.scores_t_strides, true);
  g.reshape(ds, ds_t);
  kv_gradient(g, l, c, ds_t, b.q, b.dk);
  const std::int64_t k = g.tensor(CUDNN_DATA_BFLOAT16, l.kv_dims, l.kv_strides, true);
  g.reshape(b.k, k);
  g.matmul(ds, k, b.dq_accum);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, b.dq_accum, b.dq);
  return b;
}

BackwardGraph build_backward(cudnnHandle_t handle, const AttentionConfig& c) {
  GraphBuilder g(handle);
  BackwardGraph b = backward_graph(g, c);
  b.plan = detail::make_plan(handle, g.build(), "the backward of " + c.describe());
  return b;
}

AttentionConfig with_default_strides(AttentionConfig c) {
  if (c.q_stride == 0) {
    c.q_stride = c.q_heads * c.head_dim;
  }
  if (c.kv_stride == 0) {
    c.kv_stride = c.kv_heads * c.head_dim;
  }
  if (c.o_stride == 0) {
    c.o_stride = c.q_heads * c.head_dim;
  }
  return c;
}

void validate(const AttentionConfig& c) {
  const auto fail = [&](const std::string& why) { throw Error(Error::Kind::unsupported, c.describe() + ": " + why); };
  if (c.fp8) {
    fail("FP8 attention is not implemented here; in dgxhost's FP8 recipe attention runs in BF16 (the Megatron and "
         "Transformer Engine default)");
  }
  if (c.batch < 1 || c.q_heads < 1 || c.kv_heads < 1 || c.q_len < 1 || c.kv_len < 1) {
    fail("every size must be positive");
  }
  if (c.q_heads % c.kv_heads != 0) {
    fail("q_heads must be a multiple of kv_heads");
  }
  if (c.head_dim % 8 != 0 || c.head_dim > 256) {
    fail("cuDNN needs head_dim a multiple of 8 and at most 256");
  }
  if (c.q_stride % 8 != 0 || c.kv_stride % 8 != 0 || c.o_stride % 8 != 0) {
    fail("row strides must be multiples of 8");
  }
  // cudnn-frontend works around a backward bug of cuDNN <= 9.15 with s_kv % 128 != 0 by a padding mask; we refuse.
  if (c.kv_len % 128 != 0 && cudnnGetVersion() <= 91500) {
    fail("cuDNN " + std::to_string(cudnnGetVersion()) + " needs s_kv a multiple of 128 (9.16 and later do not)");
  }
}

}  // namespace

void check_attention_graphs(const AttentionConfig& config) {
  const AttentionConfig c = with_default_strides(config);
  validate(c);
  try {
    GraphBuilder forward(nullptr);
    (void)forward_graph(forward, c);
    (void)forward.build();
    GraphBuilder backward(nullptr);
    (void)backward_graph(backward, c);
    (void)backward.build();
  } catch (const Error& e) {
    throw Error(e.kind(), "building the cuDNN graphs of " + c.describe() + ": " + e.what());
  }
}

std::string AttentionConfig::describe() const {
  std::string text =
      std::string(causal ? "causal " : "") + (q_heads == kv_heads ? "MHA" : "GQA") + " SDPA " + (fp8 ? "fp8" : "bf16");
  text += " b=" + std::to_string(batch) + " hq=" + std::to_string(q_heads) + " hkv=" + std::to_string(kv_heads) +
          " s_q=" + std::to_string(q_len) + " s_kv=" + std::to_string(kv_len) + " d=" + std::to_string(head_dim);
  return text;
}

Cudnn::Cudnn() {
  cudnnHandle_t handle = nullptr;
  DGX_CUDNN_CHECK(cudnnCreate(&handle));
  handle_ = handle;
}
Cudnn::~Cudnn() {
  if (handle_ != nullptr) {
    cudnnDestroy(static_cast<cudnnHandle_t>(handle_));
  }
}

struct FlashAttention::Impl {
  const Cudnn& cudnn;
  AttentionConfig config;
  ForwardGraph forward;
  BackwardGraph backward;
  float scale = 0;
  float one = 1.0f;
  float negative_infinity = -std::numeric_limits<float>::infinity();
};

FlashAttention::FlashAttention(const Cudnn& cudnn, const AttentionConfig& config) {
  const AttentionConfig c = with_default_strides(config);
  validate(c);
  try {
    // Masked scores: -inf from cuDNN 9.1 on, the lowest float before (as cudnn-frontend does).
    const float masked =
        cudnnGetVersion() >= 91000 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::lowest();
    ForwardGraph forward = build_forward(raw(cudnn), c);
    BackwardGraph backward = c.forward_only ? BackwardGraph{} : build_backward(raw(cudnn), c);
    const auto scale = static_cast<float>(1.0 / std::sqrt(double(c.head_dim)));
    // Impl is an aggregate: make_unique would need parenthesised aggregate initialisation, which clang 14 lacks.
    // NOLINTNEXTLINE(modernize-make-unique)
    impl_.reset(new Impl{cudnn, c, std::move(forward), std::move(backward), scale, 1.0f, masked});
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find(c.describe()) != std::string::npos) {
      throw;  // make_plan named the configuration already
    }
    throw Error(e.kind(), "building the cuDNN graphs of " + c.describe() + ": " + what);
  }
}

FlashAttention::~FlashAttention() = default;

const AttentionConfig& FlashAttention::config() const { return impl_->config; }

std::size_t FlashAttention::forward_workspace_bytes() const {
  return align_up(static_cast<std::size_t>(impl_->forward.plan.workspace_bytes));
}

std::size_t FlashAttention::backward_workspace_bytes() const {
  const AttentionConfig& c = impl_->config;
  const auto rows = static_cast<std::size_t>(c.batch * c.q_heads * c.q_len);
  return align_up(static_cast<std::size_t>(impl_->backward.plan.workspace_bytes)) + align_up(rows * sizeof(float)) +
         align_up(rows * static_cast<std::size_t>(c.head_dim) * sizeof(float));
}

void FlashAttention::forward(const void* q, const void* k, const void* v, void* o, float* stats, void* workspace,
                             cudaStream_t stream) const {
  Impl& m = *impl_;
  const ForwardGraph& f = m.forward;
  DGX_CUDNN_CHECK(cudnnSetStream(raw(m.cudnn), stream));
  std::vector<std::pair<std::int64_t, void*>> pointers = {
      {f.q, const_cast<void*>(q)}, {f.k, const_cast<void*>(k)}, {f.v, const_cast<void*>(v)}, {f.o, o}, {f.stats, stats},
      {f.scale, &m.scale}};
  if (f.negative_infinity >= 0) {
    pointers.emplace_back(f.negative_infinity, &m.negative_infinity);
  }
  detail::execute(raw(m.cudnn), f.plan, pointers, workspace);
}

void FlashAttention::backward(const void* q, const void* k, const void* v, const void* o, const void* d_o,
                              const float* stats, void* dq, void* dk, void* dv, void* workspace,
                              cudaStream_t stream) const {
  Impl& m = *impl_;
  if (m.config.forward_only) {
    throw Error(Error::Kind::runtime, m.config.describe() + ": built forward only");
  }
  const BackwardGraph& b = m.backward;
  const AttentionConfig& c = m.config;
  const auto rows = static_cast<std::size_t>(c.batch * c.q_heads * c.q_len);
  char* base = static_cast<char*>(workspace);
  void* softmax_sum = base + align_up(static_cast<std::size_t>(b.plan.workspace_bytes));
  void* dq_accum = static_cast<char*>(softmax_sum) + align_up(rows * sizeof(float));
  const std::size_t dq_accum_bytes = rows * static_cast<std::size_t>(c.head_dim) * sizeof(float);
  // cuDNN >= 9.6 initializes the accumulator itself (cudnn-frontend stopped clearing it); clearing it here too
  // costs a fraction of a percent of the backward and keeps older cuDNN versions correct.
  DGX_CUDA_CHECK(cudaMemsetAsync(dq_accum, 0, dq_accum_bytes, stream));
  DGX_CUDNN_CHECK(cudnnSetStream(raw(m.cudnn), stream));
  std::vector<std::pair<std::int64_t, void*>> pointers = {{b.q, const_cast<void*>(q)},
                                                          {b.k, const_cast<void*>(k)},
                                                          {b.v, const_cast<void*>(v)},
                                                          {b.o, const_cast<void*>(o)},
                                                          {b.d_o, const_cast<void*>(d_o)},
                                                          {b.stats, const_cast<float*>(stats)},
                                                          {b.dq, dq},
                                                          {b.dk, dk},
                                                          {b.dv, dv},
                                                          {b.softmax_sum, softmax_sum},
                                                          {b.dq_accum, dq_accum},
                                                          {b.scale, &m.scale},
                                                          {b.one, &m.one}};
  if (b.negative_infinity >= 0) {
    pointers.emplace_back(b.negative_infinity, &m.negative_infinity);
  }
  detail::execute(raw(m.cudnn), b.plan, pointers, base);
}

}  // namespace dgx::llm::cuda
