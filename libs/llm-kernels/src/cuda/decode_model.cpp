#include "dgx/llm/cuda/decode_model.hpp"

#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/cuda/resources.hpp"
#include "dgx/llm/cuda/serve_kernels.hpp"
#include "serve_buffers.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dgx::llm::cuda {

namespace {

using detail::ServeGemm;
using detail::ServeWeights;

std::size_t bf16_bytes(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(bf16); }

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
      if (broken != nullptr) {
        cudaGraphDestroy(broken);
      }
      throw;
    }
    DGX_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    DGX_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t stream) const { DGX_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
  void reset() noexcept {
    if (exec_ != nullptr) {
      cudaGraphExecDestroy(exec_);
    }
    if (graph_ != nullptr) {
      cudaGraphDestroy(graph_);
    }
    exec_ = nullptr;
    graph_ = nullptr;
  }

private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// Refuses what the decode loop does not run, before anything is allocated.
const kernels::DecodeModelSpec& supported(const kernels::DecodeModelSpec& spec) {
  if (spec.arch.activation != kernels::Activation::swiglu || spec.arch.norm != kernels::Norm::rmsnorm) {
    throw Error(Error::Kind::unsupported, "the decode loop runs dense SwiGLU / RMSNorm models (Llama)");
  }
  return spec;
}

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
  detail::ServeDims dims;
  std::int64_t vocab = 0, capacity = 0;
  bool fp8 = false;
  double weight_bytes = 0, kv_bytes_per_token = 0;
  std::uint64_t seed;

  std::vector<detail::ServeLayerWeights> layers;
  ServeWeights lm_head;  ///< BF16 in every precision (as quantized checkpoints keep it)
  DeviceBuffer embedding, gamma_final, final_normed, logits;
  detail::ServeActivations a;
  detail::PagedKvStorage kv;
  DeviceBuffer lengths, token_seq, token_offset, ids, rope, attention_workspace;
  int splits = 1;

  std::int64_t batch = 0;
  std::unique_ptr<ServeGemm> g_qkv, g_proj, g_fc1, g_fc2, g_head;
  Graph graph;
  std::int64_t position = 0;  ///< every sequence's length now
  double last_mean_context = 0;
};

DecodeModel::Impl::Impl(const kernels::DecodeModelSpec& s, std::uint64_t random_seed, int gemm_candidates)
    : spec(supported(s)), device(current_device()), candidates(gemm_candidates), dims(spec.arch, 1),
      vocab(spec.arch.vocab), capacity(spec.context + spec.headroom), fp8(spec.precision == kernels::Precision::fp8),
      weight_bytes(kernels::model_weight_bytes(spec)), kv_bytes_per_token(kernels::model_kv_bytes_per_token(spec)),
      seed(random_seed), a(dims, spec.max_batch, 0, stream.get()),
      kv(dims, spec.kv, spec.max_batch, capacity, spec.layers, 0, 0, stream.get()) {
  const cudaStream_t st = stream.get();
  layers.reserve(std::size_t(spec.layers));
  for (int l = 0; l < spec.layers; ++l) {
    layers.emplace_back(dims, spec.precision, seed, st);
  }
  const std::int64_t h = dims.h;
  embedding = DeviceBuffer(bf16_bytes(vocab * h));
  fill_uniform(embedding.as<bf16>(), vocab * h, detail::next_seed(seed), 1.0f, st);
  lm_head = detail::make_serve_weights(h, vocab, kernels::Precision::bf16, detail::next_seed(seed), st);
  gamma_final = DeviceBuffer(bf16_bytes(h));
  fill_uniform(gamma_final.as<bf16>(), h, detail::next_seed(seed), 0.1f, st, 1.0f);
  const std::int64_t rows = detail::padded_rows(spec.max_batch);
  final_normed = DeviceBuffer(bf16_bytes(rows * h));
  logits = DeviceBuffer(bf16_bytes(rows * vocab));

  std::vector<std::int32_t> seq(static_cast<std::size_t>(spec.max_batch));
  std::iota(seq.begin(), seq.end(), 0);
  token_seq = detail::upload_ints(seq);
  token_offset = detail::upload_ints(std::vector<std::int32_t>(seq.size(), 0));
  lengths = detail::upload_ints(std::vector<std::int32_t>(seq.size(), 0));
  ids = DeviceBuffer(seq.size() * sizeof(std::int32_t));
  fill_indices(ids.as<std::int32_t>(), spec.max_batch, detail::next_seed(seed), static_cast<std::int32_t>(vocab), st);
  if (spec.arch.rope) {
    rope = DeviceBuffer(std::size_t((capacity + 1) * dims.d / 2) * sizeof(float2));
    rope_table(rope.as<float2>(), capacity + 1, dims.d, spec.arch.rope_theta, st);
  }
  const int most_splits = decode_attention_splits(1, dims.hq, dims.hkv, capacity);
  attention_workspace = DeviceBuffer(std::max<std::size_t>(
      decode_attention_workspace_bytes(spec.max_batch, dims.hq, dims.d, most_splits), std::size_t{256}));
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
  const detail::ServeLayerWeights& l = layers.front();
  const auto make = [&](kernels::Precision p, const void* xin, const ServeWeights& w, const DeviceBuffer& y) {
    auto g = std::make_unique<ServeGemm>(blas, b, w.in, w.out, p, candidates);
    g->tune(xin, w, y.as<bf16>(), st);
    return g;
  };
  g_qkv = make(spec.precision, a.normed.get(), l.qkv, a.qkv);
  g_proj = make(spec.precision, a.attention_in.get(), l.proj, a.delta_attn);
  g_fc1 = make(spec.precision, a.normed.get(), l.fc1, a.fc1);
  g_fc2 = make(spec.precision, a.act.get(), l.fc2, a.delta_mlp);
  g_head = make(kernels::Precision::bf16, final_normed.get(), lm_head, logits);
}

void DecodeModel::Impl::enqueue_iteration(std::int64_t b) {
  const cudaStream_t st = stream.get();
  const std::int64_t h = dims.h;
  embedding_forward(ids.as<std::int32_t>(), b, embedding.as<bf16>(), 0, vocab, h, a.x.as<bf16>(), st);
  const DecodeAttentionArgs args =
      detail::decode_args(dims, a, b, lengths.as<std::int32_t>(), splits, attention_workspace.as<float>());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const detail::ServeLayerWeights& l = layers[i];
    const PagedKv cache = kv.layer(i);
    add_rmsnorm(a.x.as<bf16>(), i == 0 ? nullptr : a.delta_mlp.as<bf16>(), l.gamma_attn.as<bf16>(), a.normed.get(), fp8,
                1.0f, b, h, st);
    g_qkv->run(a.normed.get(), l.qkv, a.qkv.as<bf16>(), st);
    rope_append_kv(a.qkv.as<bf16>(), b, dims.qkv_w, dims.hq, token_seq.as<std::int32_t>(),
                   token_offset.as<std::int32_t>(), lengths.as<std::int32_t>(), rope ? rope.as<float2>() : nullptr,
                   cache, st);
    decode_attention(args, cache, st);
    const void* proj_input = a.attention.get();
    if (fp8) {
      cast_fp8_static(a.attention.as<bf16>(), a.attention_in.get(), 1.0f, b * dims.q_width(), st);
      proj_input = a.attention_in.get();
    }
    g_proj->run(proj_input, l.proj, a.delta_attn.as<bf16>(), st);
    add_rmsnorm(a.x.as<bf16>(), a.delta_attn.as<bf16>(), l.gamma_mlp.as<bf16>(), a.normed.get(), fp8, 1.0f, b, h, st);
    g_fc1->run(a.normed.get(), l.fc1, a.fc1.as<bf16>(), st);
    swiglu_out(a.fc1.as<bf16>(), a.act.get(), fp8, 1.0f, b, dims.f, st);
    g_fc2->run(a.act.get(), l.fc2, a.delta_mlp.as<bf16>(), st);
  }
  add_rmsnorm(a.x.as<bf16>(), a.delta_mlp.as<bf16>(), gamma_final.as<bf16>(), final_normed.get(), false, 1.0f, b, h,
              st);
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
  if (batch < 1 || batch > m.spec.max_batch) {
    throw std::invalid_argument("batch " + std::to_string(batch) + " is outside 1.." +
                                std::to_string(m.spec.max_batch));
  }
  m.batch = batch;
  m.splits = decode_attention_splits(batch, m.dims.hq, m.dims.hkv, m.capacity);
  m.build_gemms(batch);
  m.graph.capture(m.stream.get(), [&] { m.enqueue_iteration(batch); });
  m.reset_lengths();
  m.graph.launch(m.stream.get());  // one untimed replay: the first launch uploads the graph
  m.stream.synchronize();
  m.position += 1;
}

double DecodeModel::time_iterations(int iterations) {
  Impl& m = *impl_;
  if (m.batch == 0) {
    throw std::logic_error("DecodeModel::prepare first");
  }
  if (iterations < 1 || iterations > m.spec.headroom) {
    throw std::invalid_argument("a timed run of the decode loop is 1.." + std::to_string(m.spec.headroom) +
                                " iterations (the cache's headroom), got " + std::to_string(iterations));
  }
  if (m.position + iterations > m.capacity) {
    m.reset_lengths();
  }
  Event start, stop;
  start.record(m.stream.get());
  for (int i = 0; i < iterations; ++i) {
    m.graph.launch(m.stream.get());
  }
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
