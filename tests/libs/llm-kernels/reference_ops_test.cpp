// The reference ops' backward passes against finite differences of their forward passes, on tiny shapes.
#include <doctest/doctest.h>

#include "dgx/llm/reference/ops.hpp"
#include "finite_difference.hpp"

#include <algorithm>

using namespace dgx::llm;
using namespace dgx::llm::reference;
using namespace dgx::llm::testing;

TEST_CASE("rounding to BF16 and FP8 matches the formats' spacing, ties to even, saturation") {
  CHECK(round_bf16(1.0) == 1.0);
  CHECK(round_bf16(1.0 + std::ldexp(1.0, -9)) == 1.0);  // halfway: ties to even
  CHECK(round_bf16(1.0 + 3 * std::ldexp(1.0, -9)) == 1.0 + std::ldexp(1.0, -7));
  CHECK(round_fp8(0.3, false) == 0.3125);
  CHECK(round_fp8(0.3, true) == 0.3125);
  CHECK(round_fp8(500.0, false) == 448.0);
  CHECK(round_fp8(-1e6, true) == -57344.0);
  CHECK(round_fp8(0.001, false) == std::ldexp(1.0, -9));  // subnormal spacing 2^-9
  CHECK(relative_l2({1.0, 2.0}, {1.0, 2.0}) == 0.0);
  CHECK(relative_l2({0.0, 0.0}, {3.0, 4.0}) == doctest::Approx(1.0));
}

TEST_CASE("the three GEMM layouts agree: x Wᵀ, dy W, dyᵀ x") {
  std::mt19937_64 rng(1);
  const Matrix x = random_matrix(3, 4, 1.0, rng), w = random_matrix(5, 4, 1.0, rng);
  const Matrix y = matmul_nt(x, w);
  Matrix wt(4, 5);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) {
      wt.at(j, i) = w.at(i, j);
    }
  }
  const Matrix y2 = matmul_nn(x, wt);
  CHECK(relative_l2(y.v, y2.v) < 1e-14);
  Matrix xt(4, 3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      xt.at(j, i) = x.at(i, j);
    }
  }
  CHECK(relative_l2(matmul_tn(x, y).v, matmul_nn(xt, y).v) < 1e-14);
}

TEST_CASE("norm backward matches finite differences (RMSNorm and LayerNorm)") {
  for (const Norm norm : {Norm::rmsnorm, Norm::layernorm}) {
    std::mt19937_64 rng(2);
    Matrix x = random_matrix(3, 8, 1.0, rng);
    std::vector<double> gamma = random_matrix(1, 8, 1.0, rng).v, beta = random_matrix(1, 8, 1.0, rng).v;
    const Matrix r = random_matrix(3, 8, 1.0, rng);
    const auto loss = [&] { return dot(norm_forward(norm, x, gamma, beta).y.v, r.v); };
    const NormResult fwd = norm_forward(norm, x, gamma, beta);
    const NormGrads g = norm_backward(norm, x, gamma, fwd, r);
    check_gradients(pointers(x.v), g.dx.v, loss, 100, rng, "dx");
    check_gradients(pointers(gamma), g.dgamma, loss, 100, rng, "dgamma");
    if (norm == Norm::layernorm) {
      check_gradients(pointers(beta), g.dbeta, loss, 100, rng, "dbeta");
    }
  }
}

TEST_CASE("activation backward matches finite differences (SwiGLU, GELU, squared ReLU)") {
  for (const reference::Activation act :
       {reference::Activation::swiglu, reference::Activation::gelu, reference::Activation::squared_relu}) {
    std::mt19937_64 rng(3);
    Matrix in = random_matrix(4, 6, 2.0, rng);
    const Matrix out = activation_forward(act, in);
    const Matrix r = random_matrix(out.rows, out.cols, 1.0, rng);
    const Matrix din = activation_backward(act, in, r);
    check_gradients(
        pointers(in.v), din.v, [&] { return dot(activation_forward(act, in).v, r.v); }, 100, rng, "din");
  }
}

TEST_CASE("rotary embedding is a rotation: the inverse undoes it and is its backward") {
  std::mt19937_64 rng(4);
  const std::int64_t seq = 5, hq = 2, hkv = 1, d = 8;
  Matrix qkv = random_matrix(2 * seq, (hq + 2 * hkv) * d, 1.0, rng);
  const Matrix original = qkv;
  rope(qkv, seq, hq, hkv, d, 10000.0, false);
  CHECK(relative_l2(qkv.v, original.v) > 1e-3);  // it did rotate
  for (std::int64_t j = (hq + hkv) * d; j < qkv.cols; ++j) {
    CHECK(qkv.at(7, j) == original.at(7, j));  // v untouched
  }
  for (std::int64_t j = 0; j < qkv.cols; ++j) {
    CHECK(qkv.at(0, j) == doctest::Approx(original.at(0, j)));  // position 0
  }
  rope(qkv, seq, hq, hkv, d, 10000.0, true);
  CHECK(relative_l2(qkv.v, original.v) < 1e-14);
  // The gradient of Σ r·rope(x) is rope⁻¹(r).
  Matrix x = original, r = random_matrix(x.rows, x.cols, 1.0, rng);
  Matrix grad = r;
  rope(grad, seq, hq, hkv, d, 10000.0, true);
  const auto loss = [&] {
    Matrix y = x;
    rope(y, seq, hq, hkv, d, 10000.0, false);
    return dot(y.v, r.v);
  };
  check_gradients(pointers(x.v), grad.v, loss, 100, rng, "dx");
}

TEST_CASE("causal grouped-query attention backward matches finite differences") {
  for (const bool causal : {true, false}) {
    std::mt19937_64 rng(5);
    const reference::AttentionShape shape{2, 5, 4, 2, 4, causal};
    Matrix qkv =
        random_matrix(shape.batch * shape.seq_len, (shape.q_heads + 2 * shape.kv_heads) * shape.head_dim, 1.0, rng);
    const AttentionResult fwd = attention_forward(qkv, shape);
    const Matrix r = random_matrix(fwd.o.rows, fwd.o.cols, 1.0, rng);
    const Matrix dqkv = attention_backward(qkv, fwd, r, shape);
    check_gradients(
        pointers(qkv.v), dqkv.v, [&] { return dot(attention_forward(qkv, shape).o.v, r.v); }, 200, rng, "dqkv");
  }
}

TEST_CASE("the first query of a causal sequence attends only to itself") {
  std::mt19937_64 rng(6);
  const reference::AttentionShape shape{1, 3, 1, 1, 4, true};
  const Matrix qkv = random_matrix(3, 12, 1.0, rng);
  const AttentionResult fwd = attention_forward(qkv, shape);
  for (int d = 0; d < 4; ++d) {
    CHECK(fwd.o.at(0, d) == doctest::Approx(qkv.at(0, 8 + d)));
  }
}

TEST_CASE("cross-entropy and embedding backward match finite differences") {
  std::mt19937_64 rng(7);
  Matrix logits = random_matrix(4, 7, 3.0, rng);
  const std::vector<std::int64_t> targets = {0, 6, 3, 3};
  const LossResult fwd = cross_entropy_forward(logits, targets);
  CHECK(fwd.loss > 0);
  const Matrix dlogits = cross_entropy_backward(logits, targets, fwd);
  check_gradients(
      pointers(logits.v), dlogits.v, [&] { return cross_entropy_forward(logits, targets).loss; }, 28, rng, "dlogits");

  Matrix table = random_matrix(5, 3, 1.0, rng);
  const std::vector<std::int64_t> ids = {4, 1, 4};
  const Matrix r = random_matrix(3, 3, 1.0, rng);
  const Matrix dtable = embedding_backward(5, r, ids);
  check_gradients(
      pointers(table.v), dtable.v, [&] { return dot(embedding_forward(table, ids).v, r.v); }, 15, rng, "dtable");
}
