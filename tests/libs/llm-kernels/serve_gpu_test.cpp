// The serving kernels against the CPU reference: the paged KV cache (rotary embedding at each token's position fused
// with the append, through a shuffled block table), decode attention over it in BF16 and FP8 with one and several
// parts per sequence, the GEMV, the fused norm / SwiGLU / sampling; and the serving layer and the decode loop run.
#include "dgx/llm/cuda/decode_model.hpp"
#include "dgx/llm/cuda/serve_kernels.hpp"
#include "dgx/llm/cuda/serve_layer.hpp"
#include "dgx/llm/reference/decode.hpp"
#include "dgx/llm/reference/ops.hpp"
#include "gpu_support.hpp"

#include <algorithm>
#include <numeric>

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::testing;
namespace ref = dgx::llm::reference;

namespace {

constexpr double kTheta = 500000.0;

DeviceBuffer upload_i32(const std::vector<std::int32_t>& v) {
  DeviceBuffer buffer(std::max<std::size_t>(v.size(), 1) * sizeof(std::int32_t));
  DGX_CUDA_CHECK(cudaMemcpy(buffer.get(), v.data(), v.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  return buffer;
}

std::vector<std::int32_t> download_i32(const DeviceBuffer& buffer, std::size_t n) {
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::int32_t> v(n);
  DGX_CUDA_CHECK(cudaMemcpy(v.data(), buffer.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return v;
}

/// A paged cache of `sequences` × `blocks_per_sequence` blocks in a shuffled order.
struct TestCache {
  TestCache(std::int64_t sequences, std::int64_t blocks_per_sequence, std::int64_t kv_heads, std::int64_t d,
            kernels::KvFormat format, float scale_inv) {
    std::vector<std::int32_t> order(static_cast<std::size_t>(sequences * blocks_per_sequence));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
    table_host = order;
    table = upload_i32(order);
    const std::size_t bytes =
        std::size_t(order.size() * kernels::kKvBlockTokens * kv_heads * d) * kernels::kv_element_bytes(format);
    k = DeviceBuffer(bytes);
    v = DeviceBuffer(bytes);
    cache.k = k.get();
    cache.v = v.get();
    cache.block_table = table.as<std::int32_t>();
    cache.max_blocks = blocks_per_sequence;
    cache.kv_heads = kv_heads;
    cache.head_dim = d;
    cache.format = format;
    cache.k_scale_inv = cache.v_scale_inv = scale_inv;
  }
  /// Element offset of (sequence, token, head) as the kernels address it.
  [[nodiscard]] std::int64_t index(std::int64_t seq, std::int64_t t, std::int64_t head) const {
    const std::int64_t block = table_host[std::size_t(seq * cache.max_blocks + t / cache.block_tokens)];
    return ((block * cache.block_tokens + t % cache.block_tokens) * cache.kv_heads + head) * cache.head_dim;
  }
  std::vector<std::int32_t> table_host;
  DeviceBuffer table, k, v;
  PagedKv cache;
};

/// A stored value as the cache holds it.
double stored(double x, kernels::KvFormat format, double scale_inv) {
  return format == kernels::KvFormat::fp8 ? ref::round_fp8(x / scale_inv, false) * scale_inv : ref::round_bf16(x);
}

void check_cache_and_decode(kernels::KvFormat format, std::int64_t long_context) {
  std::mt19937_64 rng(21);
  const std::int64_t hq = 8, hkv = 2, d = 128, width = (hq + 2 * hkv) * d;
  const std::vector<std::int64_t> context = {1, 70, long_context};
  const std::int64_t batch = std::int64_t(context.size());
  const std::int64_t longest = *std::max_element(context.begin(), context.end()) + 1;
  const std::int64_t blocks = (longest + kernels::kKvBlockTokens - 1) / kernels::kKvBlockTokens;
  const double scale_inv = format == kernels::KvFormat::fp8 ? 0.01 : 1.0;
  TestCache c(batch, blocks, hkv, d, format, float(scale_inv));
  DeviceBuffer table = DeviceBuffer(std::size_t((longest + 1) * d / 2) * sizeof(float2));
  rope_table(table.as<float2>(), longest + 1, d, kTheta, nullptr);

  // Every sequence's history and its new token: rows of QKV, appended in one call (positions from the offsets).
  std::int64_t rows = 0;
  for (const std::int64_t n : context) {
    rows += n + 1;
  }
  std::vector<double> qkv = random_bf16(std::size_t(rows * width), 1.0, rng);
  std::vector<std::int32_t> seq, offset;
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t t = 0; t <= context[std::size_t(b)]; ++t) {
      seq.push_back(std::int32_t(b));
      offset.push_back(std::int32_t(t));
    }
  }
  DeviceBuffer dqkv = upload_bf16(qkv), dseq = upload_i32(seq), doffset = upload_i32(offset);
  DeviceBuffer lengths = upload_i32(std::vector<std::int32_t>(std::size_t(batch), 0));
  rope_append_kv(dqkv.as<bf16>(), rows, width, hq, dseq.as<std::int32_t>(), doffset.as<std::int32_t>(),
                 lengths.as<std::int32_t>(), table.as<float2>(), c.cache, nullptr);
  lengths = upload_i32(std::vector<std::int32_t>(context.begin(), context.end()));

  // The reference: rotated keys and queries, the cache's rounding, attention over every cached token.
  std::vector<ref::Matrix> keys, values;
  ref::Matrix q(batch, hq * d);
  std::vector<double> k_expected, k_cached;
  const std::vector<double> k_device = format == kernels::KvFormat::fp8
                                           ? download_fp8(c.k, c.k.bytes(), false, scale_inv)
                                           : download_bf16(c.k, c.k.bytes() / 2);
  std::int64_t row = 0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t n = context[std::size_t(b)] + 1;
    ref::Matrix k(n, hkv * d), v(n, hkv * d);
    for (std::int64_t t = 0; t < n; ++t, ++row) {
      double* base = qkv.data() + row * width;
      for (std::int64_t head = 0; head < hq + hkv; ++head) {
        ref::rope_at(base + head * d, d, t, kTheta);
      }
      for (std::int64_t i = 0; i < hkv * d; ++i) {
        k.at(t, i) = stored(base[hq * d + i], format, scale_inv);
        v.at(t, i) = stored(base[(hq + hkv) * d + i], format, scale_inv);
      }
      for (std::int64_t head = 0; head < hkv; ++head) {
        for (std::int64_t i = 0; i < d; ++i) {
          k_expected.push_back(k.at(t, head * d + i));
          k_cached.push_back(k_device[std::size_t(c.index(b, t, head) + i)]);
        }
      }
      if (t == n - 1) {
        for (std::int64_t i = 0; i < hq * d; ++i) {
          q.at(b, i) = ref::round_bf16(base[i]);
        }
      }
    }
    keys.push_back(std::move(k));
    values.push_back(std::move(v));
  }
  // The kernel rotates in FP32, the reference in FP64: a value on a rounding boundary may land one step apart.
  check_close("cached K (rotated, paged)", k_cached, k_expected,
              format == kernels::KvFormat::fp8 ? kFp8GemmTolerance : kBf16Tolerance);
  const ref::Matrix expected = ref::decode_attention(q, keys, values, {.q_heads = hq, .kv_heads = hkv, .head_dim = d});

  // The decode rows are each sequence's last row of the QKV buffer.
  std::vector<double> all_rows = download_bf16(dqkv, std::size_t(rows * width));
  std::vector<double> last_rows;
  row = 0;
  for (std::int64_t b = 0; b < batch; ++b) {
    row += context[std::size_t(b)] + 1;
    last_rows.insert(last_rows.end(), all_rows.begin() + (row - 1) * width, all_rows.begin() + row * width);
  }
  check_close(
      "rotated q",
      [&] {
        std::vector<double> out;
        for (std::int64_t b = 0; b < batch; ++b) {
          out.insert(out.end(), last_rows.begin() + b * width, last_rows.begin() + b * width + hq * d);
        }
        return out;
      }(),
      q.v, kBf16Tolerance);
  const DeviceBuffer decode_q = upload_bf16(last_rows);
  for (const int splits : {1, decode_attention_splits(batch, hq, hkv, longest)}) {
    CAPTURE(splits);
    DeviceBuffer out(std::size_t(batch * hq * d) * 2);
    DeviceBuffer workspace(std::max<std::size_t>(decode_attention_workspace_bytes(batch, hq, d, splits), 4));
    DecodeAttentionArgs args;
    args.batch = batch;
    args.q_heads = hq;
    args.q = decode_q.as<bf16>();
    args.q_stride = width;
    args.out = out.as<bf16>();
    args.o_stride = hq * d;
    args.lengths = lengths.as<std::int32_t>();
    args.pending = 1;
    args.splits = splits;
    args.workspace = workspace.as<float>();
    decode_attention(args, c.cache, nullptr);
    check_close("decode attention", download_bf16(out, std::size_t(batch * hq * d)), expected.v, kBf16Tolerance);
  }
}

}  // namespace

TEST_CASE("the paged KV cache holds rotated keys where the block table says, BF16 decode attention matches") {
  if (!have_gpu()) {
    return;
  }
  check_cache_and_decode(kernels::KvFormat::bf16, 700);
}

TEST_CASE("an FP8 KV cache stores value / scale_inv in E4M3, decode attention over it matches the reference") {
  if (!have_gpu()) {
    return;
  }
  check_cache_and_decode(kernels::KvFormat::fp8, 1500);
}

TEST_CASE("the GEMV computes x·Wᵀ for 1 to 8 rows in BF16 and FP8") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(22);
  const std::int64_t n = 96, k = 264;
  for (const bool fp8 : {false, true}) {
    for (const std::int64_t m : {1, 3, 8}) {
      CAPTURE(fp8);
      CAPTURE(m);
      std::vector<double> x = random_bf16(std::size_t(m * k), 1.0, rng), w = random_bf16(std::size_t(n * k), 1.0, rng);
      if (fp8) {
        for (double& v : x) {
          v = ref::round_fp8(v, false);
        }
        for (double& v : w) {
          v = ref::round_fp8(v, false);
        }
      }
      const ref::Matrix expected = ref::matmul_nt(as_matrix(x, m, k), as_matrix(w, n, k));
      DeviceBuffer dx, dw;
      if (fp8) {  // FP8 operands: cast the exactly representable values with scale 1
        const DeviceBuffer x16 = upload_bf16(x), w16 = upload_bf16(w);
        dx = DeviceBuffer(std::size_t(m * k));
        dw = DeviceBuffer(std::size_t(n * k));
        cast_fp8_static(x16.as<bf16>(), dx.get(), 1.0f, m * k, nullptr);
        cast_fp8_static(w16.as<bf16>(), dw.get(), 1.0f, n * k, nullptr);
      } else {
        dx = upload_bf16(x);
        dw = upload_bf16(w);
      }
      DeviceBuffer y(std::size_t(m * n) * 2);
      gemv(dx.get(), dw.get(), y.as<bf16>(), m, n, k, fp8, 1.0f, nullptr);
      check_close("gemv", download_bf16(y, std::size_t(m * n)), expected.v, kBf16Tolerance);
    }
  }
}

TEST_CASE("residual add + RMSNorm, SwiGLU and greedy sampling match the reference") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(23);
  const std::int64_t rows = 5, cols = 512;
  const auto x = random_bf16(std::size_t(rows * cols), 2.0, rng),
             delta = random_bf16(std::size_t(rows * cols), 1.0, rng);
  const auto gamma = random_bf16(std::size_t(cols), 1.0, rng);
  DeviceBuffer dx = upload_bf16(x), ddelta = upload_bf16(delta), dgamma = upload_bf16(gamma);
  DeviceBuffer out(std::size_t(rows * cols) * 2);
  add_rmsnorm(dx.as<bf16>(), ddelta.as<bf16>(), dgamma.as<bf16>(), out.get(), false, 1.0f, rows, cols, nullptr);
  std::vector<double> sum(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum[i] = ref::round_bf16(x[i] + delta[i]);
  }
  check_close("residual stream", download_bf16(dx, x.size()), sum, kBf16Tolerance);
  const ref::NormResult norm = ref::norm_forward(kernels::Norm::rmsnorm, as_matrix(sum, rows, cols), gamma, {});
  check_close("add_rmsnorm", download_bf16(out, x.size()), norm.y.v, kBf16Tolerance);

  const std::int64_t f = 256;
  const auto in = random_bf16(std::size_t(rows * 2 * f), 3.0, rng);
  DeviceBuffer din = upload_bf16(in), act(std::size_t(rows * f) * 2);
  swiglu_out(din.as<bf16>(), act.get(), false, 1.0f, rows, f, nullptr);
  const ref::Matrix swiglu = ref::activation_forward(kernels::Activation::swiglu, as_matrix(in, rows, 2 * f));
  check_close("swiglu_out", download_bf16(act, std::size_t(rows * f)), swiglu.v, kBf16Tolerance);

  const std::int64_t vocab = 1000;
  std::vector<double> logits = random_bf16(std::size_t(rows * vocab), 1.0, rng);
  std::vector<std::int32_t> expected;
  for (std::int64_t r = 0; r < rows; ++r) {
    logits[std::size_t(r * vocab + 17 * (r + 1))] = 5.0;  // a clear winner per row
    expected.push_back(std::int32_t(17 * (r + 1)));
  }
  DeviceBuffer dlogits = upload_bf16(logits);
  DeviceBuffer ids(std::size_t(rows) * sizeof(std::int32_t));
  argmax_rows(dlogits.as<bf16>(), rows, vocab, ids.as<std::int32_t>(), nullptr);
  CHECK(download_i32(ids, std::size_t(rows)) == expected);
}

TEST_CASE("a serving layer runs its decode and chunk iterations and times every op") {
  if (!have_gpu()) {
    return;
  }
  for (const kernels::Precision precision : {kernels::Precision::bf16, kernels::Precision::fp8}) {
    kernels::ServeLayerSpec spec;
    spec.arch = kernels::Architecture{.hidden = 512, .ffn = 1024, .heads = 8, .kv_groups = 2};
    spec.precision = precision;
    spec.kv = precision == kernels::Precision::fp8 ? kernels::KvFormat::fp8 : kernels::KvFormat::bf16;
    spec.decode_batch = 4;
    spec.context = 100;
    spec.prefill_tokens = 64;
    ServeLayer layer(spec);
    CHECK(layer.time_decode(3, false) > 0);
    const kernels::ServeLayerTiming t = layer.profile(3);
    const auto named = [](const std::vector<kernels::OpTiming>& ops, const char* name) {
      return std::any_of(ops.begin(), ops.end(), [&](const auto& op) { return op.name == name && op.seconds > 0; });
    };
    for (const char* name :
         {"norm_attn", "qkv", "rope_kv_append", "decode_attention", "proj", "fc1", "swiglu", "fc2"}) {
      CHECK_MESSAGE(named(t.decode, name), name);
    }
    CHECK(named(t.chunk, "attention"));
    CHECK(t.decode_seconds > 0);
    CHECK(t.chunk_seconds > t.decode_seconds * 0.5);
  }
}

TEST_CASE("a whole small model decodes in a CUDA graph: contexts grow, tokens stay in the vocabulary") {
  if (!have_gpu()) {
    return;
  }
  kernels::DecodeModelSpec spec;
  spec.arch = kernels::Architecture{.hidden = 256, .ffn = 512, .heads = 4, .kv_groups = 2, .vocab = 1000};
  spec.layers = 2;
  spec.context = 40;
  spec.max_batch = 8;
  spec.headroom = 32;
  DecodeModel model(spec);
  for (const std::int64_t batch : {1, 3, 8}) {
    model.prepare(batch);
    CHECK(model.time_iterations(5) > 0);
    CHECK(model.time_iterations(30) > 0);  // past the cache's end: the contexts are reset first
    CHECK_THROWS_AS((void)model.time_iterations(33), std::invalid_argument);
    CHECK(model.bytes_per_iteration() > kernels::model_weight_bytes(spec));
    for (const std::int32_t token : model.last_tokens()) {
      CHECK((token >= 0 && token < 1000));
    }
  }
}
