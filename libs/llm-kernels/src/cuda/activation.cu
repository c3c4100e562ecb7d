// MLP activations, forward and backward: SwiGLU (silu(gate) · up over [gate | up] rows), GELU (tanh
// approximation, as Megatron's bias_gelu) and squared ReLU. One grid-stride loop over 8-element vectors of the
// output (scalars when the row length is not a multiple of 8).
#include "common.cuh"

namespace dgx::llm::cuda {

namespace {

constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

struct Swiglu {
  static constexpr bool kGated = true;
  __device__ static float forward(float gate, float up) { return gate * sigmoid(gate) * up; }
  /// Gradients with respect to gate and up.
  __device__ static float2 backward(float gate, float up, float d) {
    const float s = sigmoid(gate);
    return make_float2(d * up * s * (1.0f + gate * (1.0f - s)), d * gate * s);
  }
};

struct Gelu {
  static constexpr bool kGated = false;
  __device__ static float forward(float x, float) {
    return 0.5f * x * (1.0f + tanhf(kGeluC * (x + kGeluA * x * x * x)));
  }
  __device__ static float2 backward(float x, float, float d) {
    const float t = tanhf(kGeluC * (x + kGeluA * x * x * x));
    return make_float2(d * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * x * x)),
                       0.0f);
  }
};

struct SquaredRelu {
  static constexpr bool kGated = false;
  __device__ static float forward(float x, float) { return x > 0.0f ? x * x : 0.0f; }
  __device__ static float2 backward(float x, float, float d) {
    return make_float2(x > 0.0f ? 2.0f * x * d : 0.0f, 0.0f);
  }
};

/// kWidth BF16 values to floats and back: 16-byte vectors, or one scalar for rows not a multiple of 8.
template <int kWidth> __device__ __forceinline__ void load(const bf16* p, float (&v)[kWidth]) {
  if constexpr (kWidth == detail::kVec) {
    detail::load8(p, v);
  } else {
    v[0] = __bfloat162float(p[0]);
  }
}
template <int kWidth> __device__ __forceinline__ void store(bf16* p, const float (&v)[kWidth]) {
  if constexpr (kWidth == detail::kVec) {
    detail::store8(p, v);
  } else {
    p[0] = __float2bfloat16(v[0]);
  }
}

/// Element (r, j) of the output: input x at in[r · in_cols + j]; the gated "up" half at + f.
template <typename Op, int kWidth>
__global__ void activation_forward_kernel(const bf16* __restrict__ in, bf16* __restrict__ out, std::int64_t rows,
                                          std::int64_t f) {
  const std::int64_t in_cols = Op::kGated ? 2 * f : f;
  const std::int64_t per_row = f / kWidth;
  for (std::int64_t v = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; v < rows * per_row;
       v += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = v / per_row, j = (v % per_row) * kWidth;
    const bf16* x = in + r * in_cols + j;
    float a[kWidth], b[kWidth] = {}, y[kWidth];
    load<kWidth>(x, a);
    if (Op::kGated) {
      load<kWidth>(x + f, b);
    }
#pragma unroll
    for (int e = 0; e < kWidth; ++e) {
      y[e] = Op::forward(a[e], b[e]);
    }
    store<kWidth>(out + r * f + j, y);
  }
}

template <typename Op, int kWidth>
__global__ void activation_backward_kernel(const bf16* __restrict__ in, const bf16* __restrict__ dout,
                                           bf16* __restrict__ din, std::int64_t rows, std::int64_t f) {
  const std::int64_t in_cols = Op::kGated ? 2 * f : f;
  const std::int64_t per_row = f / kWidth;
  for (std::int64_t v = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; v < rows * per_row;
       v += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = v / per_row, j = (v % per_row) * kWidth;
    const std::int64_t at = r * in_cols + j;
    float a[kWidth], b[kWidth] = {}, d[kWidth], da[kWidth], db[kWidth];
    load<kWidth>(in + at, a);
    if (Op::kGated) {
      load<kWidth>(in + at + f, b);
    }
    load<kWidth>(dout + r * f + j, d);
#pragma unroll
    for (int e = 0; e < kWidth; ++e) {
      const float2 g = Op::backward(a[e], b[e], d[e]);
      da[e] = g.x;
      db[e] = g.y;
    }
    store<kWidth>(din + at, da);
    if (Op::kGated) {
      store<kWidth>(din + at + f, db);
    }
  }
}

constexpr int kThreads = 256;

template <typename Op> void forward(const bf16* in, bf16* out, std::int64_t rows, std::int64_t f, cudaStream_t stream) {
  if (f % detail::kVec == 0) {
    activation_forward_kernel<Op, detail::kVec>
        <<<detail::grid_for(rows * f / detail::kVec, kThreads), kThreads, 0, stream>>>(in, out, rows, f);
  } else {
    activation_forward_kernel<Op, 1><<<detail::grid_for(rows * f, kThreads), kThreads, 0, stream>>>(in, out, rows, f);
  }
  DGX_CUDA_CHECK_LAUNCH();
}

template <typename Op>
void backward(const bf16* in, const bf16* dout, bf16* din, std::int64_t rows, std::int64_t f, cudaStream_t stream) {
  if (f % detail::kVec == 0) {
    activation_backward_kernel<Op, detail::kVec>
        <<<detail::grid_for(rows * f / detail::kVec, kThreads), kThreads, 0, stream>>>(in, dout, din, rows, f);
  } else {
    activation_backward_kernel<Op, 1>
        <<<detail::grid_for(rows * f, kThreads), kThreads, 0, stream>>>(in, dout, din, rows, f);
  }
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace

void activation_forward(kernels::Activation activation, const bf16* in, bf16* out, std::int64_t rows, std::int64_t f,
                        cudaStream_t stream) {
  if (rows * f == 0) {
    return;
  }
  switch (activation) {
  case kernels::Activation::swiglu: return forward<Swiglu>(in, out, rows, f, stream);
  case kernels::Activation::gelu: return forward<Gelu>(in, out, rows, f, stream);
  case kernels::Activation::squared_relu: return forward<SquaredRelu>(in, out, rows, f, stream);
  }
}

void activation_backward(kernels::Activation activation, const bf16* in, const bf16* dout, bf16* din, std::int64_t rows,
                         std::int64_t f, cudaStream_t stream) {
  if (rows * f == 0) {
    return;
  }
  switch (activation) {
  case kernels::Activation::swiglu: return backward<Swiglu>(in, dout, din, rows, f, stream);
  case kernels::Activation::gelu: return backward<Gelu>(in, dout, din, rows, f, stream);
  case kernels::Activation::squared_relu: return backward<SquaredRelu>(in, dout, din, rows, f, stream);
  }
}

}  // namespace dgx::llm::cuda
