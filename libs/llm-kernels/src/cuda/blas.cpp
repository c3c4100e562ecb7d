#include "dgx/llm/cuda/blas.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace dgx::llm::cuda {

namespace {

cudaDataType_t cuda_type(DType type) {
  switch (type) {
  case DType::bf16: return CUDA_R_16BF;
  case DType::fp8_e4m3: return CUDA_R_8F_E4M3;
  case DType::fp8_e5m2: return CUDA_R_8F_E5M2;
  case DType::fp32: return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

bool is_fp8(DType type) { return type == DType::fp8_e4m3 || type == DType::fp8_e5m2; }

void require(bool condition, const GemmDesc& desc, const std::string& what) {
  if (!condition) {
    throw Error(Error::Kind::unsupported, "GEMM " + desc.describe() + ": " + what);
  }
}

void validate(const GemmDesc& d) {
  require(d.m > 0 && d.n > 0 && d.k > 0 && d.batch >= 1, d, "m, n, k and batch must be positive");
  require(d.alignment >= 1 && d.alignment <= 256 && (d.alignment & (d.alignment - 1)) == 0, d,
          "alignment must be a power of two up to 256");
  require(d.d_type == DType::bf16 || d.d_type == DType::fp32, d, "the output must be BF16 or FP32");
  if (!is_fp8(d.a_type) && !is_fp8(d.b_type)) {
    require(d.a_type == DType::bf16 && d.b_type == DType::bf16, d, "non-FP8 GEMMs take BF16 operands");
    return;
  }
  require(is_fp8(d.a_type) && is_fp8(d.b_type), d, "FP8 GEMMs take two FP8 operands");
  require(!(d.a_type == DType::fp8_e5m2 && d.b_type == DType::fp8_e5m2), d,
          "cuBLASLt has no E5M2 x E5M2 GEMM (gradients are E5M2, weights and activations E4M3)");
  require(!d.a_transposed && d.b_transposed, d,
          "FP8 GEMMs on Hopper need both operands K-contiguous (A [m, k], B [n, k]); cast a transposed copy");
  require(d.m % 16 == 0 && d.n % 16 == 0 && d.k % 16 == 0, d, "FP8 GEMMs need m, n and k multiples of 16");
}

template <typename T> void set_desc(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  DGX_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, attribute, &value, sizeof value));
}

cublasLtMatrixLayout_t make_layout(DType type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                   std::int64_t batch, std::int64_t stride) {
  cublasLtMatrixLayout_t layout = nullptr;
  DGX_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, cuda_type(type), static_cast<std::uint64_t>(rows),
                                              static_cast<std::uint64_t>(cols), ld));
  if (batch > 1) {
    const auto count = static_cast<std::int32_t>(batch);
    const cublasStatus_t s1 =
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    const cublasStatus_t s2 =
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    if (s1 != CUBLAS_STATUS_SUCCESS || s2 != CUBLAS_STATUS_SUCCESS) {
      cublasLtMatrixLayoutDestroy(layout);
      DGX_CUBLAS_CHECK(s1 != CUBLAS_STATUS_SUCCESS ? s1 : s2);
    }
  }
  return layout;
}

struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { cublasLtMatmulPreferenceDestroy(p); }
};

}  // namespace

const char* to_string(DType type) {
  switch (type) {
  case DType::bf16: return "bf16";
  case DType::fp8_e4m3: return "e4m3";
  case DType::fp8_e5m2: return "e5m2";
  case DType::fp32: return "fp32";
  }
  return "?";
}

std::size_t element_bytes(DType type) {
  switch (type) {
  case DType::bf16: return 2;
  case DType::fp8_e4m3:
  case DType::fp8_e5m2: return 1;
  case DType::fp32: return 4;
  }
  return 0;
}

std::string GemmDesc::describe() const {
  std::string text = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
  if (batch > 1) {
    text += " batch=" + std::to_string(batch);
  }
  text += std::string(" ") + to_string(a_type) + (a_transposed ? "ᵀ" : "") + "·" + to_string(b_type) +
          (b_transposed ? "ᵀ" : "") + "->" + to_string(d_type);
  if (alpha != 1.0f) {
    text += " alpha=" + std::to_string(alpha);
  }
  if (accumulate) {
    text += " (accumulate)";
  }
  return text;
}

BlasLt::BlasLt() : workspace_(kWorkspaceBytes) { DGX_CUBLAS_CHECK(cublasLtCreate(&handle_)); }
BlasLt::~BlasLt() {
  if (handle_ != nullptr) {
    cublasLtDestroy(handle_);
  }
}

Gemm::Gemm(const BlasLt& blas, const GemmDesc& desc, int candidates) : blas_(blas), desc_(desc) {
  validate(desc_);
  const GemmDesc& d = desc_;
  const std::int64_t lda = d.lda > 0 ? d.lda : (d.a_transposed ? d.m : d.k);
  const std::int64_t ldb = d.ldb > 0 ? d.ldb : (d.b_transposed ? d.k : d.n);
  const std::int64_t ldd = d.ldd > 0 ? d.ldd : d.n;
  try {
    DGX_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    // cuBLAS's A is our B: [n, k] row-major is column-major k×n, transposed to n×k.
    const cublasOperation_t trans_a = d.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    // cuBLAS's B is our A: [m, k] row-major is column-major k×m, used as is.
    const cublasOperation_t trans_b = d.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    set_desc(op_, CUBLASLT_MATMUL_DESC_TRANSA, trans_a);
    set_desc(op_, CUBLASLT_MATMUL_DESC_TRANSB, trans_b);
    if (is_fp8(d.a_type) && d.fast_accum) {
      set_desc(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1});
    }
    layout_a_ = d.b_transposed ? make_layout(d.b_type, d.k, d.n, ldb, d.batch, d.stride_b)
                               : make_layout(d.b_type, d.n, d.k, ldb, d.batch, d.stride_b);
    layout_b_ = d.a_transposed ? make_layout(d.a_type, d.m, d.k, lda, d.batch, d.stride_a)
                               : make_layout(d.a_type, d.k, d.m, lda, d.batch, d.stride_a);
    layout_d_ = make_layout(d.d_type, d.n, d.m, ldd, d.batch, d.stride_d);

    cublasLtMatmulPreference_t raw = nullptr;
    DGX_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw));
    const std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter> preference(raw);
    const std::uint64_t workspace = BlasLt::kWorkspaceBytes;
    DGX_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                          sizeof workspace));
    for (const auto attribute :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
      DGX_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, attribute, &d.alignment, sizeof d.alignment));
    }

    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(std::max(1, candidates)));
    int returned = 0;
    DGX_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(blas_.get(), op_, layout_a_, layout_b_, layout_d_, layout_d_, raw,
                                                    static_cast<int>(results.size()), results.data(), &returned));
    for (int i = 0; i < returned; ++i) {
      if (results[std::size_t(i)].state == CUBLAS_STATUS_SUCCESS) {
        algos_.push_back(results[std::size_t(i)].algo);
      }
    }
    if (algos_.empty()) {
      throw Error(Error::Kind::unsupported, "cuBLASLt has no algorithm for the GEMM " + d.describe());
    }
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

Gemm::~Gemm() { release(); }

void Gemm::release() noexcept {
  if (layout_d_ != nullptr) {
    cublasLtMatrixLayoutDestroy(layout_d_);
  }
  if (layout_b_ != nullptr) {
    cublasLtMatrixLayoutDestroy(layout_b_);
  }
  if (layout_a_ != nullptr) {
    cublasLtMatrixLayoutDestroy(layout_a_);
  }
  if (op_ != nullptr) {
    cublasLtMatmulDescDestroy(op_);
  }
  layout_a_ = layout_b_ = layout_d_ = nullptr;
  op_ = nullptr;
}

void Gemm::launch(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream,
                  const float* a_scale, const float* b_scale) const {
  // The algorithm was chosen for this alignment: a less aligned operand would be a silent misuse.
  for (const void* p : {a, b, static_cast<const void*>(d)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % desc_.alignment != 0) {
      throw Error(Error::Kind::runtime, "GEMM " + desc_.describe() + ": an operand is not aligned to " +
                                            std::to_string(desc_.alignment) + " bytes");
    }
  }
  if (is_fp8(desc_.a_type)) {
    // cuBLAS's A is our B and vice versa; a null pointer means a scale of 1.
    set_desc(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, b_scale);
    set_desc(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, a_scale);
  }
  const float alpha = desc_.alpha;
  const float beta = desc_.accumulate ? 1.0f : 0.0f;
  DGX_CUBLAS_CHECK(cublasLtMatmul(blas_.get(), op_, &alpha, b, layout_a_, a, layout_b_, &beta, d, layout_d_, d,
                                  layout_d_, &algo, blas_.workspace(), BlasLt::kWorkspaceBytes, stream));
}

void Gemm::run(const void* a, const void* b, void* d, cudaStream_t stream, const float* a_scale,
               const float* b_scale) const {
  launch(algos_[chosen_], a, b, d, stream, a_scale, b_scale);
}

namespace {

// A GPU idles at a few hundred MHz and needs tens of milliseconds of work to reach its boost clock: candidates
// timed from idle would be ranked by the clock ramp, not by their speed (the first one always loses).
constexpr float kWarmUpMs = 100.0f;
constexpr int kMaxWarmUpLaunches = 1 << 16;
// Candidates are timed in interleaved rounds and each keeps its best round, so a clock or power change in the
// middle of tuning does not decide the ranking.
constexpr int kTuningRounds = 4;

}  // namespace

float Gemm::time_launches(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream,
                          const float* a_scale, const float* b_scale, int launches) const {
  Event start, stop;
  start.record(stream);
  for (int r = 0; r < launches; ++r) {
    launch(algo, a, b, d, stream, a_scale, b_scale);
  }
  stop.record(stream);
  stop.synchronize();
  return stop.milliseconds_since(start);
}

void Gemm::warm_up(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream,
                   const float* a_scale, const float* b_scale) const {
  float elapsed = 0;
  for (int launches = 1; elapsed < kWarmUpMs && launches <= kMaxWarmUpLaunches; launches *= 2) {
    elapsed += time_launches(algo, a, b, d, stream, a_scale, b_scale, launches);
  }
}

void Gemm::tune(const void* a, const void* b, void* d, cudaStream_t stream, const float* a_scale, const float* b_scale,
                int repeats) {
  if (algos_.size() < 2) {
    return;
  }
  std::vector<std::optional<float>> best(algos_.size());
  std::vector<bool> unusable(algos_.size(), false);
  std::optional<Error> first_error;
  bool warm = false;
  for (int round = 0; round < kTuningRounds; ++round) {
    for (std::size_t i = 0; i < algos_.size(); ++i) {
      if (unusable[i]) {
        continue;
      }
      try {
        if (!warm) {
          warm_up(algos_[i], a, b, d, stream, a_scale, b_scale);
          warm = true;
        }
        launch(algos_[i], a, b, d, stream, a_scale, b_scale);  // this candidate's own first run, untimed
        const float ms = time_launches(algos_[i], a, b, d, stream, a_scale, b_scale, repeats);
        if (!best[i] || ms < *best[i]) {
          best[i] = ms;
        }
      } catch (const Error& e) {  // a heuristic candidate that cannot run this problem: skip it from now on
        if (!first_error) {
          first_error = e;
        }
        unusable[i] = true;
        DGX_CUDA_CHECK(cudaStreamSynchronize(stream));
      }
    }
  }
  std::optional<std::size_t> best_index;
  for (std::size_t i = 0; i < algos_.size(); ++i) {
    if (best[i] && (!best_index || *best[i] < *best[*best_index])) {
      best_index = i;
    }
  }
  if (!best_index) {
    throw *first_error;
  }
  chosen_ = *best_index;
}

}  // namespace dgx::llm::cuda
