#include "dgx/llm/cuda/serve_layer.hpp"

#include "context.hpp"
#include "dgx/llm/cuda/attention.hpp"
#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/serve_kernels.hpp"
#include "serve_buffers.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace dgx::llm::cuda {

namespace {

using detail::ServeGemm;
using detail::ServeWeights;

/// Refuses what the measured serving layer does not run, before anything is allocated.
const kernels::ServeLayerSpec& supported(const kernels::ServeLayerSpec& spec) {
  const kernels::Architecture& a = spec.arch;
  if (a.moe() || a.activation != kernels::Activation::swiglu || a.norm != kernels::Norm::rmsnorm) {
    throw Error(Error::Kind::unsupported, "the measured serving layer is a dense SwiGLU / RMSNorm layer (Llama); " +
                                              kernels::describe(spec) + " is projected only");
  }
  return spec;
}

}  // namespace

struct ServeLayer::Impl {
  Impl(const kernels::ServeLayerSpec& s, std::uint64_t seed, int candidates);

  /// One iteration of `rows` tokens: the first spec.decode_batch decode, the rest the prompt chunk.
  void iteration(bool with_chunk);
  void record(kernels::OpTiming meta, auto&& enqueue) { recorder.op(std::move(meta), enqueue); }
  [[nodiscard]] kernels::OpTiming memory(const char* name, double bytes) const {
    return detail::memory_op(name, kernels::Pass::forward, bytes);
  }

  kernels::ServeLayerSpec spec;
  DeviceProperties device;
  Stream stream;
  BlasLt blas;
  Cudnn cudnn;
  detail::Recorder recorder;
  detail::ServeDims dims;
  std::int64_t rows_decode = 0, rows_chunk = 0;
  bool fp8 = false;
  std::uint64_t seed;
  detail::ServeLayerWeights w;
  detail::ServeActivations a;
  std::unique_ptr<detail::PagedKvStorage> kv;
  DeviceBuffer lengths, token_seq, token_offset, rope, attention_workspace;
  DeviceBuffer prompt_stats, prompt_workspace, l2_flush;
  PagedKv cache;
  int splits = 1;
  std::unique_ptr<FlashAttention> prompt;
  std::unique_ptr<ServeGemm> qkv_d, proj_d, fc1_d, fc2_d, qkv_c, proj_c, fc1_c, fc2_c;
};

ServeLayer::Impl::Impl(const kernels::ServeLayerSpec& s, std::uint64_t random_seed, int candidates)
    : spec(supported(s)), device(current_device()), recorder(stream.get()), dims(spec.arch, spec.tp),
      rows_decode(spec.decode_batch), rows_chunk(spec.decode_batch + spec.prefill_tokens),
      fp8(spec.precision == kernels::Precision::fp8), seed(random_seed), w(dims, spec.precision, seed, stream.get()),
      a(dims, rows_chunk, detail::next_seed(seed), stream.get()) {
  const kernels::Architecture& arch = spec.arch;
  const std::int64_t hq = dims.hq, hkv = dims.hkv, d = dims.d, qkv_w = dims.qkv_w;
  const cudaStream_t st = stream.get();

  // The paged cache: decode_batch sequences of context (+1 new) tokens and one prompt sequence, blocks shuffled;
  // constant contents stand for the cached context (FP8: E4M3 0.5).
  const std::int64_t sequences = spec.decode_batch + 1;
  const std::int64_t per_sequence = std::max(spec.context + 1, spec.prefill_tokens);
  kv = std::make_unique<detail::PagedKvStorage>(dims, spec.kv, sequences, per_sequence, 1, random_seed,
                                                spec.kv == kernels::KvFormat::fp8 ? 0x30 : 0, st);
  cache = kv->layer(0);
  std::vector<std::int32_t> length(static_cast<std::size_t>(sequences), static_cast<std::int32_t>(spec.context));
  length.back() = 0;  // the prompt's sequence starts empty
  lengths = detail::upload_ints(length);
  std::vector<std::int32_t> seq(static_cast<std::size_t>(rows_chunk)), offset(seq.size());
  for (std::int64_t i = 0; i < rows_chunk; ++i) {
    const bool decoding = i < spec.decode_batch;
    seq[std::size_t(i)] = static_cast<std::int32_t>(decoding ? i : spec.decode_batch);
    offset[std::size_t(i)] = static_cast<std::int32_t>(decoding ? 0 : i - spec.decode_batch);
  }
  token_seq = detail::upload_ints(seq);
  token_offset = detail::upload_ints(offset);
  if (arch.rope) {
    const std::int64_t positions = per_sequence + 1;
    rope = DeviceBuffer(std::size_t(positions * d / 2) * sizeof(float2));
    rope_table(rope.as<float2>(), positions, d, arch.rope_theta, st);
  }
  splits = decode_attention_splits(spec.decode_batch, hq, hkv, spec.context + 1);
  const std::size_t workspace = decode_attention_workspace_bytes(spec.decode_batch, hq, d, splits);
  if (workspace > 0) {
    attention_workspace = DeviceBuffer(workspace);
  }

  // The prompt's attention: cuDNN flash attention, causal, reading q, k, v from the QKV rows of the chunk.
  if (spec.prefill_tokens > 0) {
    AttentionConfig c;
    c.batch = 1;
    c.q_heads = hq;
    c.kv_heads = hkv;
    c.q_len = c.kv_len = spec.prefill_tokens;
    c.head_dim = d;
    c.causal = true;
    c.q_stride = c.kv_stride = qkv_w;
    c.o_stride = hq * d;
    c.forward_only = true;
    prompt = std::make_unique<FlashAttention>(cudnn, c);
    prompt_stats = DeviceBuffer(std::size_t(hq * spec.prefill_tokens) * sizeof(float));
    prompt_workspace = DeviceBuffer(std::max<std::size_t>(prompt->forward_workspace_bytes(), 256));
  }
  l2_flush = DeviceBuffer(std::max<std::size_t>(2 * device.l2_bytes, std::size_t{1} << 20));

  // GEMMs at both row counts, tuned on these operands.
  const auto gemm = [&](std::unique_ptr<ServeGemm>& g, std::int64_t r, const ServeWeights& weights,
                        const DeviceBuffer& in, const DeviceBuffer& out) {
    g = std::make_unique<ServeGemm>(blas, r, weights.in, weights.out, spec.precision, candidates);
    g->tune(in.get(), weights, out.as<bf16>(), st);
  };
  gemm(qkv_d, rows_decode, w.qkv, a.normed, a.qkv);
  gemm(proj_d, rows_decode, w.proj, a.attention_in, a.delta_attn);
  gemm(fc1_d, rows_decode, w.fc1, a.normed, a.fc1);
  gemm(fc2_d, rows_decode, w.fc2, a.act, a.delta_mlp);
  if (spec.prefill_tokens > 0) {
    gemm(qkv_c, rows_chunk, w.qkv, a.normed, a.qkv);
    gemm(proj_c, rows_chunk, w.proj, a.attention_in, a.delta_attn);
    gemm(fc1_c, rows_chunk, w.fc1, a.normed, a.fc1);
    gemm(fc2_c, rows_chunk, w.fc2, a.act, a.delta_mlp);
  }
  DGX_CUDA_CHECK(cudaStreamSynchronize(st));
}

void ServeLayer::Impl::iteration(bool with_chunk) {
  const cudaStream_t st = stream.get();
  const std::int64_t rows = with_chunk ? rows_chunk : rows_decode;
  const std::int64_t h = dims.h, f = dims.f, d = dims.d, hq = dims.hq, hkv = dims.hkv, qkv_w = dims.qkv_w;
  const double in_bytes = fp8 ? 1.0 : 2.0;
  const double kv_bytes = double(kernels::kv_element_bytes(spec.kv));
  ServeGemm& g_qkv = with_chunk ? *qkv_c : *qkv_d;
  ServeGemm& g_proj = with_chunk ? *proj_c : *proj_d;
  ServeGemm& g_fc1 = with_chunk ? *fc1_c : *fc1_d;
  ServeGemm& g_fc2 = with_chunk ? *fc2_c : *fc2_d;

  record(memory("norm_attn", double(rows * h) * (6.0 + in_bytes)), [&] {
    add_rmsnorm(a.x.as<bf16>(), a.delta_mlp.as<bf16>(), w.gamma_attn.as<bf16>(), a.normed.get(), fp8, 1.0f, rows, h,
                st);
  });
  record(g_qkv.op("qkv"), [&] { g_qkv.run(a.normed.get(), w.qkv, a.qkv.as<bf16>(), st); });
  record(memory("rope_kv_append",
                double(rows) * double(d) *
                    (double(qkv_w) / double(d) * 2.0 + double(hq + hkv) * 2.0 + 2.0 * double(hkv) * kv_bytes)),
         [&] {
           rope_append_kv(a.qkv.as<bf16>(), rows, qkv_w, hq, token_seq.as<std::int32_t>(),
                          token_offset.as<std::int32_t>(), lengths.as<std::int32_t>(),
                          rope ? rope.as<float2>() : nullptr, cache, st);
         });
  const double cached = double(spec.decode_batch) * double(spec.context + 1) * 2.0 * double(hkv * d) * kv_bytes;
  record(memory("decode_attention", cached + double(spec.decode_batch * hq * d) * 4.0), [&] {
    decode_attention(detail::decode_args(dims, a, spec.decode_batch, lengths.as<std::int32_t>(), splits,
                                         attention_workspace.as<float>()),
                     cache, st);
  });
  if (with_chunk) {
    record(detail::attention_op(kernels::Pass::forward, prompt->config()), [&] {
      bf16* rows_q = a.qkv.as<bf16>() + spec.decode_batch * qkv_w;
      prompt->forward(rows_q, rows_q + hq * d, rows_q + (hq + hkv) * d,
                      a.attention.as<bf16>() + spec.decode_batch * hq * d, prompt_stats.as<float>(),
                      prompt_workspace.get(), st);
    });
  }
  const void* proj_input = a.attention.get();
  if (fp8) {
    record(memory("cast_proj_input", double(rows * hq * d) * 3.0),
           [&] { cast_fp8_static(a.attention.as<bf16>(), a.attention_in.get(), 1.0f, rows * hq * d, st); });
    proj_input = a.attention_in.get();
  }
  record(g_proj.op("proj"), [&] { g_proj.run(proj_input, w.proj, a.delta_attn.as<bf16>(), st); });
  record(memory("norm_mlp", double(rows * h) * (6.0 + in_bytes)), [&] {
    add_rmsnorm(a.x.as<bf16>(), a.delta_attn.as<bf16>(), w.gamma_mlp.as<bf16>(), a.normed.get(), fp8, 1.0f, rows, h,
                st);
  });
  record(g_fc1.op("fc1"), [&] { g_fc1.run(a.normed.get(), w.fc1, a.fc1.as<bf16>(), st); });
  record(memory("swiglu", double(rows * f) * (4.0 + in_bytes)),
         [&] { swiglu_out(a.fc1.as<bf16>(), a.act.get(), fp8, 1.0f, rows, f, st); });
  record(g_fc2.op("fc2"), [&] { g_fc2.run(a.act.get(), w.fc2, a.delta_mlp.as<bf16>(), st); });
}

ServeLayer::ServeLayer(const kernels::ServeLayerSpec& spec, std::uint64_t seed, int gemm_candidates) {
  kernels::validate(spec);
  impl_ = std::make_unique<Impl>(spec, seed, gemm_candidates);
}

ServeLayer::~ServeLayer() = default;

const kernels::ServeLayerSpec& ServeLayer::spec() const { return impl_->spec; }
std::string ServeLayer::device_name() const { return impl_->device.name; }

void ServeLayer::decode() {
  impl_->recorder.begin_step(false);
  impl_->iteration(false);
}

void ServeLayer::chunk() {
  if (impl_->spec.prefill_tokens == 0) {
    throw std::invalid_argument("this serving layer has no prompt chunk");
  }
  impl_->recorder.begin_step(false);
  impl_->iteration(true);
}

void ServeLayer::synchronize() { impl_->stream.synchronize(); }

double ServeLayer::time_decode(int iterations, bool flush_l2) {
  Impl& m = *impl_;
  if (flush_l2) {
    DGX_CUDA_CHECK(cudaMemsetAsync(m.l2_flush.get(), 0, m.l2_flush.bytes(), m.stream.get()));
  }
  Event start, stop;
  start.record(m.stream.get());
  for (int i = 0; i < iterations; ++i) {
    decode();
  }
  stop.record(m.stream.get());
  stop.synchronize();
  return double(stop.milliseconds_since(start)) * 1e-3;
}

kernels::ServeLayerTiming ServeLayer::profile(int repeats) {
  Impl& m = *impl_;
  kernels::ServeLayerTiming timing;
  const auto profiled = [&](bool with_chunk) {
    for (int r = 0; r < repeats; ++r) {
      m.recorder.begin_step(true);
      m.iteration(with_chunk);
      m.stream.synchronize();
      m.recorder.collect();
    }
    return m.recorder.results();
  };
  const auto alone = [&](bool with_chunk) {
    m.recorder.begin_step(false);
    m.iteration(with_chunk);  // warm
    Event start, stop;
    start.record(m.stream.get());
    for (int r = 0; r < repeats; ++r) {
      m.iteration(with_chunk);
    }
    stop.record(m.stream.get());
    stop.synchronize();
    return double(stop.milliseconds_since(start)) * 1e-3 / repeats;
  };
  timing.decode = profiled(false);
  timing.decode_seconds = alone(false);
  if (m.spec.prefill_tokens > 0) {
    timing.chunk = profiled(true);
    timing.chunk_seconds = alone(true);
  }
  timing.weight_bytes = m.w.bytes();
  timing.kv_cache_bytes = m.kv->bytes();
  std::size_t free = 0, total = 0;
  DGX_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  timing.peak_bytes = total - free;
  return timing;
}

}  // namespace dgx::llm::cuda
