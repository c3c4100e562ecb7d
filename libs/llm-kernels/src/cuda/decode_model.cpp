#include "dgx/llm/cuda/decode_model.hpp"

#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/cuda/resources.hpp"
#include "dgx/llm/cuda/serve_kernels.hpp"
#include "serve_linear.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dgx::llm::cuda {

namespace {

using detail::ServeGemm;
using detail::ServeWeights;

std::size_t bf16_bytes(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(bf16); }

struct LayerWeights {
  ServeWeights qkv, proj, fc1, fc2;
  DeviceBuffer gamma_attn, gamma_mlp;
  DeviceBuffer k_cache, v_cache;
};

/// A CUDA graph and its executable instance.
class Graph {
public:
  Graph() = default;
  ~Graph() { reset(); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  void capture(cudaStream_t stream, auto&& enqueue) {
    reset();
    DGX_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken != nullptr) cudaGraphDestroy(broken);
      throw;
    }
    DGX_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    DGX_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t stream) const { DGX_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
  void reset() noexcept {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }

private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

struct DecodeModel::Impl {
  Impl(const kernels::DecodeModelSpec& s, std::uint64_t seed, int candidates);
  void build_gemms(std::int64_t batch);
  void enqueue_iteration(std::int64_t batch);
  void reset_lengths();

  kernels::DecodeModelSpec spec;
  DeviceProperties device;
  int candidates;
  Stream stream;
  BlasLt blas;
  std::int64_t hq = 0, hkv = 0, d = 0, h = 0, f = 0, qkv_w = 0, vocab = 0, capacity = 0;
  bool fp8 = false;
  double weight_bytes = 0, kv_bytes_per_token = 0;

  std::vector<LayerWeights> layers;
  ServeWeights lm_head;  ///< BF16 in every precision (as quantized checkpoints keep it)
  DeviceBuffer embedding, gamma_final;
  DeviceBuffer x, normed, qkv, attention, attention_in, delta_attn, fc1, act, delta_mlp, final_normed, logits;
  DeviceBuffer block_table, lengths, token_seq, token_offset, ids, rope, attention_workspace;
  PagedKv cache;  ///< the layers differ only in their K and V pointers
  int splits = 1;

  std::int64_t batch = 0;
  std::unique_ptr<ServeGemm> g_qkv, g_proj, g_fc1, g_fc2, g_head;
  Graph graph;
  std::int64_t position = 0;  ///< every sequence's length now
  double last_mean_context = 0;
};

DecodeModel::Impl::Impl(const kernels::DecodeModelSpec& s, std::uint64_t seed, int gemm_candidates)
    : spec(s), device(current_device()), candidates(gemm_candidates) {
  const kernels::Architecture& a = spec.arch;
  if (a.activation != kernels::Activation::swiglu || a.norm != kernels::Norm::rmsnorm)
    throw Error(Error::Kind::unsupported, "the decode loop runs dense SwiGLU / RMSNorm models (Llama)");
  hq = a.heads;
  hkv = a.kv_groups;
  d = a.dim();
  h = a.hidden;
  f = a.ffn;
  qkv_w = (hq + 2 * hkv) * d;
  vocab = a.vocab;
  fp8 = spec.precision == kernels::Precision::fp8;
  weight_bytes = kernels::model_weight_bytes(spec);
  kv_bytes_per_token = kernels::model_kv_bytes_per_token(spec);
  const cudaStream_t st = stream.get();
  std::uint64_t next = seed;
  const auto seed_next = [&] { return next++ * 0x9e3779b97f4a7c15ull + 1; };

  cache.block_tokens = kernels::kKvBlockTokens;
  capacity = spec.context + spec.headroom;
  cache.max_blocks = (capacity + cache.block_tokens - 1) / cache.block_tokens;
  cache.kv_heads = hkv;
  cache.head_dim = d;
  cache.format = spec.kv;
  const std::int64_t blocks = spec.max_batch * cache.max_blocks;
  const std::size_t cache_bytes =
      std::size_t(blocks * cache.block_tokens * hkv * d) * kernels::kv_element_bytes(spec.kv);
  layers.resize(std::size_t(spec.layers));
  for (LayerWeights& l : layers) {
    l.qkv = detail::make_serve_weights(h, qkv_w, spec.precision, seed_next(), st);
    l.proj = detail::make_serve_weights(hq * d, h, spec.precision, seed_next(), st);
    l.fc1 = detail::make_serve_weights(h, 2 * f, spec.precision, seed_next(), st);
    l.fc2 = detail::make_serve_weights(f, h, spec.precision, seed_next(), st);
    for (DeviceBuffer* gamma : {&l.gamma_attn, &l.gamma_mlp}) {
      *gamma = DeviceBuffer(bf16_bytes(h));
      fill_uniform(gamma->as<bf16>(), h, seed_next(), 0.1f, st, 1.0f);
    }
    l.k_cache = DeviceBuffer(cache_bytes);
    l.v_cache = DeviceBuffer(cache_bytes);
    DGX_CUDA_CHECK(cudaMemsetAsync(l.k_cache.get(), 0, cache_bytes, st));
    DGX_CUDA_CHECK(cudaMemsetAsync(l.v_cache.get(), 0, cache_bytes, st));
  }
  embedding = DeviceBuffer(bf16_bytes(vocab * h));
  fill_uniform(embedding.as<bf16>(), vocab * h, seed_next(), 1.0f, st);
  lm_head = detail::make_serve_weights(h, vocab, kernels::Precision::bf16, seed_next(), st);
  gamma_final = DeviceBuffer(bf16_bytes(h));
  fill_uniform(gamma_final.as<bf16>(), h, seed_next(), 0.1f, st, 1.0f);

  const std::int64_t rows = detail::padded_rows(spec.max_batch);
  const auto buffer = [&](DeviceBuffer& b, std::int64_t cols) {
    b = DeviceBuffer(bf16_bytes(rows * cols));
    DGX_CUDA_CHECK(cudaMemsetAsync(b.get(), 0, b.bytes(), st));
  };
  buffer(x, h);
  buffer(normed, h);
  buffer(qkv, qkv_w);
  buffer(attention, hq * d);
  buffer(attention_in, hq * d);
  buffer(delta_attn, h);
  buffer(fc1, 2 * f);
  buffer(act, f);
  buffer(delta_mlp, h);
  buffer(final_normed, h);
  buffer(logits, vocab);

  std::vector<std::int32_t> table(static_cast<std::size_t>(blocks));
  std::iota(table.begin(), table.end(), 0);
  block_table = DeviceBuffer(table.size() * sizeof(std::int32_t));
  DGX_CUDA_CHECK(cudaMemcpy(block_table.get(), table.data(), block_table.bytes(), cudaMemcpyHostToDevice));
  cache.block_table = block_table.as<std::int32_t>();
  lengths = DeviceBuffer(std::size_t(spec.max_batch) * sizeof(std::int32_t));
  std::vector<std::int32_t> seq(static_cast<std::size_t>(spec.max_batch));
  std::iota(seq.begin(), seq.end(), 0);
  token_seq = DeviceBuffer(seq.size() * sizeof(std::int32_t));
  DGX_CUDA_CHECK(cudaMemcpy(token_seq.get(), seq.data(), token_seq.bytes(), cudaMemcpyHostToDevice));
  token_offset = DeviceBuffer(seq.size() * sizeof(std::int32_t));
  DGX_CUDA_CHECK(cudaMemset(token_offset.get(), 0, token_offset.bytes()));
  ids = DeviceBuffer(seq.size() * sizeof(std::int32_t));
  fill_indices(ids.as<std::int32_t>(), spec.max_batch, seed_next(), static_cast<std::int32_t>(vocab), st);
  if (a.rope) {
    rope = DeviceBuffer(std::size_t((capacity + 1) * d / 2) * sizeof(float2));
    rope_table(rope.as<float2>(), capacity + 1, d, a.rope_theta, st);
  }
  const int most_splits = decode_attention_splits(1, hq, hkv, capacity);
  attention_workspace = DeviceBuffer(
      std::max<std::size_t>(decode_attention_workspace_bytes(spec.max_batch, hq, d, most_splits), std::size_t{256}));
  DGX_CUDA_CHECK(cudaStreamSynchronize(st));
}

void DecodeModel::Impl::reset_lengths() {
  std::vector<std::int32_t> length(static_cast<std::size_t>(spec.max_batch), static_cast<std::int32_t>(spec.context));
  DGX_CUDA_CHECK(cudaMemcpyAsync(lengths.get(), length.data(), lengths.bytes(), cudaMemcpyHostToDevice, stream.get()));
  DGX_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  position = spec.context;
}

void DecodeModel::Impl::build_gemms(std::int64_t b) {
  const cudaStream_t st = stream.get();
  const LayerWeights& l = layers.front();
  const auto make = [&](std::int64_t in, std::int64_t out, kernels::Precision p, const void* xin, const ServeWeights& w,
                        const DeviceBuffer& y) {
    auto g = std::make_unique<ServeGemm>(blas, b, in, out, p, candidates);
    g->tune(xin, w, y.as<bf16>(), st);
    return g;
  };
  g_qkv = make(h, qkv_w, spec.precision, normed.get(), l.qkv, qkv);
  g_proj = make(hq * d, h, spec.precision, attention_in.get(), l.proj, delta_attn);
  g_fc1 = make(h, 2 * f, spec.precision, normed.get(), l.fc1, fc1);
  g_fc2 = make(f, h, spec.precision, act.get(), l.fc2, delta_mlp);
  g_head = make(h, vocab, kernels::Precision::bf16, final_normed.get(), lm_head, logits);
}

void DecodeModel::Impl::enqueue_iteration(std::int64_t b) {
  const cudaStream_t st = stream.get();
  embedding_forward(ids.as<std::int32_t>(), b, embedding.as<bf16>(), 0, vocab, h, x.as<bf16>(), st);
  DecodeAttentionArgs args;
  args.batch = b;
  args.q_heads = hq;
  args.q = qkv.as<bf16>();
  args.q_stride = qkv_w;
  args.out = attention.as<bf16>();
  args.o_stride = hq * d;
  args.lengths = lengths.as<std::int32_t>();
  args.pending = 1;
  args.splits = splits;
  args.workspace = attention_workspace.as<float>();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    LayerWeights& l = layers[i];
    add_rmsnorm(x.as<bf16>(), i == 0 ? nullptr : delta_mlp.as<bf16>(), l.gamma_attn.as<bf16>(), normed.get(), fp8, 1.0f,
                b, h, st);
    g_qkv->run(normed.get(), l.qkv, qkv.as<bf16>(), st);
    PagedKv layer_cache = cache;
    layer_cache.k = l.k_cache.get();
    layer_cache.v = l.v_cache.get();
    rope_append_kv(qkv.as<bf16>(), b, qkv_w, hq, token_seq.as<std::int32_t>(), token_offset.as<std::int32_t>(),
                   lengths.as<std::int32_t>(), rope ? rope.as<float2>() : nullptr, layer_cache, st);
    decode_attention(args, layer_cache, st);
    const void* proj_input = attention.get();
    if (fp8) {
      cast_fp8_static(attention.as<bf16>(), attention_in.get(), 1.0f, b * hq * d, st);
      proj_input = attention_in.get();
    }
    g_proj->run(proj_input, l.proj, delta_attn.as<bf16>(), st);
    add_rmsnorm(x.as<bf16>(), delta_attn.as<bf16>(), l.gamma_mlp.as<bf16>(), normed.get(), fp8, 1.0f, b, h, st);
    g_fc1->run(normed.get(), l.fc1, fc1.as<bf16>(), st);
    swiglu_out(fc1.as<bf16>(), act.get(), fp8, 1.0f, b, f, st);
    g_fc2->run(act.get(), l.fc2, delta_mlp.as<bf16>(), st);
  }
  add_rmsnorm(x.as<bf16>(), delta_mlp.as<bf16>(), gamma_final.as<bf16>(), final_normed.get(), false, 1.0f, b, h, st);
  g_head->run(final_normed.get(), lm_head, logits.as<bf16>(), st);
  argmax_rows(logits.as<bf16>(), b, vocab, ids.as<std::int32_t>(), st);
  advance_lengths(lengths.as<std::int32_t>(), b, 1, st);
}

DecodeModel::DecodeModel(const kernels::DecodeModelSpec& spec, std::uint64_t seed, int gemm_candidates) {
  kernels::validate(spec);
  impl_ = std::make_unique<Impl>(spec, seed, gemm_candidates);
}

DecodeModel::~DecodeModel() = default;

std::string DecodeModel::device_name() const { return impl_->device.name; }

void DecodeModel::prepare(std::int64_t batch) {
  Impl& m = *impl_;
  if (batch < 1 || batch > m.spec.max_batch)
    throw std::invalid_argument("batch " + std::to_string(batch) + " is outside 1.." +
                                std::to_string(m.spec.max_batch));
  m.batch = batch;
  m.splits = decode_attention_splits(batch, m.hq, m.hkv, m.capacity);
  m.build_gemms(batch);
  m.graph.capture(m.stream.get(), [&] { m.enqueue_iteration(batch); });
  m.reset_lengths();
  m.graph.launch(m.stream.get());  // one untimed replay: the first launch uploads the graph
  m.stream.synchronize();
  m.position += 1;
}

double DecodeModel::time_iterations(int iterations) {
  Impl& m = *impl_;
  if (m.batch == 0) throw std::logic_error("DecodeModel::prepare first");
  if (iterations < 1 || iterations > m.spec.headroom)
    throw std::invalid_argument("a timed run of the decode loop is 1.." + std::to_string(m.spec.headroom) +
                                " iterations (the cache's headroom), got " + std::to_string(iterations));
  if (m.position + iterations > m.capacity) m.reset_lengths();
  Event start, stop;
  start.record(m.stream.get());
  for (int i = 0; i < iterations; ++i) m.graph.launch(m.stream.get());
  stop.record(m.stream.get());
  stop.synchronize();
  // Iteration i reads position + i + 1 tokens per sequence (the new one included).
  m.last_mean_context = double(m.position) + 0.5 * (iterations + 1);
  m.position += iterations;
  return double(stop.milliseconds_since(start)) * 1e-3;
}

double DecodeModel::bytes_per_iteration() const {
  const Impl& m = *impl_;
  return m.weight_bytes + double(m.batch) * m.last_mean_context * m.kv_bytes_per_token;
}

std::vector<std::int32_t> DecodeModel::last_tokens() {
  Impl& m = *impl_;
  std::vector<std::int32_t> out(static_cast<std::size_t>(m.batch));
  m.stream.synchronize();
  DGX_CUDA_CHECK(cudaMemcpy(out.data(), m.ids.get(), out.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace dgx::llm::cuda
