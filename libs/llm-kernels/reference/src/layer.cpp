#include "dgx/llm/reference/layer.hpp"

#include <cmath>
#include <stdexcept>

namespace dgx::llm::reference {

namespace {

std::vector<double> random_vector(std::int64_t n, double center, double spread, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(center - spread, center + spread);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = uniform(rng);
  return v;
}

Matrix rows_of(const Matrix& m, std::int64_t first, std::int64_t count) {
  Matrix out(count, m.cols);
  for (std::int64_t i = 0; i < count; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) out.at(i, j) = m.at(first + i, j);
  return out;
}

void put_rows(Matrix& m, std::int64_t first, const Matrix& rows) {
  for (std::int64_t i = 0; i < rows.rows; ++i)
    for (std::int64_t j = 0; j < rows.cols; ++j) m.at(first + i, j) = rows.at(i, j);
}

}  // namespace

LayerWeights LayerWeights::random(const kernels::LayerSpec& spec, std::mt19937_64& rng) {
  const kernels::RankShapes r = kernels::rank_shapes(spec);
  const auto linear = [&](std::int64_t out, std::int64_t in) {
    return random_matrix(out, in, 1.0 / std::sqrt(double(in)), rng);
  };
  const bool layer = spec.arch.norm == kernels::Norm::layernorm;
  LayerWeights w;
  w.norm1_gamma = random_vector(r.hidden, 1.0, 0.1, rng);
  w.norm2_gamma = random_vector(r.hidden, 1.0, 0.1, rng);
  if (layer) {
    w.norm1_beta = random_vector(r.hidden, 0.0, 0.1, rng);
    w.norm2_beta = random_vector(r.hidden, 0.0, 0.1, rng);
  }
  w.qkv = linear(r.qkv_width, r.hidden);
  w.proj = linear(r.hidden, r.q_heads * r.head_dim);
  if (spec.arch.moe()) {
    w.router = linear(spec.arch.experts, r.hidden);
    for (std::int64_t e = 0; e < r.local_experts; ++e) {
      w.expert_fc1.push_back(linear(r.fc1_width, r.hidden));
      w.expert_fc2.push_back(linear(r.hidden, r.ffn));
    }
  } else {
    w.fc1 = linear(r.fc1_width, r.hidden);
    w.fc2 = linear(r.hidden, r.ffn);
  }
  return w;
}

LayerWeights LayerWeights::zeros_like(const LayerWeights& w) {
  LayerWeights z = w;
  for (double* x : z.values()) *x = 0.0;
  return z;
}

std::vector<double*> LayerWeights::values() {
  std::vector<double*> out;
  const auto add = [&](std::vector<double>& v) {
    for (double& x : v) out.push_back(&x);
  };
  add(norm1_gamma);
  add(norm1_beta);
  add(qkv.v);
  add(proj.v);
  add(norm2_gamma);
  add(norm2_beta);
  add(fc1.v);
  add(fc2.v);
  add(router.v);
  for (Matrix& m : expert_fc1) add(m.v);
  for (Matrix& m : expert_fc2) add(m.v);
  return out;
}

ReferenceLayer::ReferenceLayer(kernels::LayerSpec spec) : spec_(spec) {
  kernels::validate(spec_);
  if (spec_.layout.tp != 1 || spec_.layout.cp != 1 || spec_.layout.ep != 1)
    throw std::invalid_argument("the reference layer computes one rank without parallelism: tp = cp = ep = 1");
  shapes_ = kernels::rank_shapes(spec_);
  attention_ =
      AttentionShape{spec_.micro_batch, spec_.seq_len, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, true};
}

Matrix ReferenceLayer::forward(const LayerWeights& w, const Matrix& x) {
  const Norm norm = spec_.arch.norm;
  SavedState s;
  s.x = x;
  s.n1 = norm_forward(norm, x, w.norm1_gamma, w.norm1_beta);
  s.qkv = matmul_nt(s.n1.y, w.qkv);
  if (spec_.arch.rope)
    rope(s.qkv, spec_.seq_len, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, spec_.arch.rope_theta, false);
  s.attn = attention_forward(s.qkv, attention_);
  s.r1 = add(x, matmul_nt(s.attn.o, w.proj));
  s.n2 = norm_forward(norm, s.r1, w.norm2_gamma, w.norm2_beta);
  saved_ = std::move(s);
  return add(saved_->r1, mlp_forward(w, saved_->n2.y));
}

Matrix ReferenceLayer::mlp_forward(const LayerWeights& w, const Matrix& in) {
  const Activation act = spec_.arch.activation;
  if (!spec_.arch.moe()) {
    saved_->f1 = matmul_nt(in, w.fc1);
    return matmul_nt(activation_forward(act, saved_->f1), w.fc2);
  }
  // Balanced routing (layer_spec.hpp): routed row r carries token r mod tokens, gate 1 / top_k.
  const std::int64_t tokens = in.rows, rows = shapes_.rows_per_expert;
  saved_->permuted = Matrix(tokens * spec_.arch.top_k, in.cols);
  for (std::int64_t r = 0; r < saved_->permuted.rows; ++r)
    for (std::int64_t j = 0; j < in.cols; ++j) saved_->permuted.at(r, j) = in.at(r % tokens, j);
  Matrix routed(saved_->permuted.rows, in.cols);
  saved_->expert_f1.clear();
  for (std::int64_t e = 0; e < shapes_.local_experts; ++e) {
    saved_->expert_f1.push_back(matmul_nt(rows_of(saved_->permuted, e * rows, rows), w.expert_fc1[std::size_t(e)]));
    put_rows(routed, e * rows,
             matmul_nt(activation_forward(act, saved_->expert_f1.back()), w.expert_fc2[std::size_t(e)]));
  }
  Matrix out(tokens, in.cols);
  const double gate = 1.0 / double(spec_.arch.top_k);
  for (std::int64_t r = 0; r < routed.rows; ++r)
    for (std::int64_t j = 0; j < in.cols; ++j) out.at(r % tokens, j) += gate * routed.at(r, j);
  return out;
}

Matrix ReferenceLayer::mlp_backward(const LayerWeights& w, const Matrix& dout, LayerWeights& grads) {
  const Activation act = spec_.arch.activation;
  const Matrix& in = saved_->n2.y;
  if (!spec_.arch.moe()) {
    const Matrix a = activation_forward(act, saved_->f1);
    add_into(grads.fc2, matmul_tn(dout, a));
    const Matrix df1 = activation_backward(act, saved_->f1, matmul_nn(dout, w.fc2));
    add_into(grads.fc1, matmul_tn(df1, in));
    return matmul_nn(df1, w.fc1);
  }
  const std::int64_t tokens = in.rows, rows = shapes_.rows_per_expert;
  const double gate = 1.0 / double(spec_.arch.top_k);
  Matrix din(tokens, in.cols);
  for (std::int64_t e = 0; e < shapes_.local_experts; ++e) {
    Matrix dy(rows, in.cols);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < in.cols; ++j) dy.at(i, j) = gate * dout.at((e * rows + i) % tokens, j);
    const Matrix& f1 = saved_->expert_f1[std::size_t(e)];
    add_into(grads.expert_fc2[std::size_t(e)], matmul_tn(dy, activation_forward(act, f1)));
    const Matrix df1 = activation_backward(act, f1, matmul_nn(dy, w.expert_fc2[std::size_t(e)]));
    add_into(grads.expert_fc1[std::size_t(e)], matmul_tn(df1, rows_of(saved_->permuted, e * rows, rows)));
    const Matrix dp = matmul_nn(df1, w.expert_fc1[std::size_t(e)]);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < in.cols; ++j) din.at((e * rows + i) % tokens, j) += dp.at(i, j);
  }
  return din;  // the router's output steers nothing, so its gradient is zero
}

Matrix ReferenceLayer::backward(const LayerWeights& w, const Matrix& dy, LayerWeights& grads) {
  if (!saved_) throw std::logic_error("ReferenceLayer::backward needs a forward first");
  const Norm norm = spec_.arch.norm;
  SavedState& s = *saved_;
  const NormGrads g2 = norm_backward(norm, s.r1, w.norm2_gamma, s.n2, mlp_backward(w, dy, grads));
  for (std::size_t j = 0; j < g2.dgamma.size(); ++j) grads.norm2_gamma[j] += g2.dgamma[j];
  for (std::size_t j = 0; j < g2.dbeta.size(); ++j) grads.norm2_beta[j] += g2.dbeta[j];
  const Matrix dr1 = add(dy, g2.dx);

  add_into(grads.proj, matmul_tn(dr1, s.attn.o));
  Matrix dqkv = attention_backward(s.qkv, s.attn, matmul_nn(dr1, w.proj), attention_);
  if (spec_.arch.rope)
    rope(dqkv, spec_.seq_len, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, spec_.arch.rope_theta, true);
  add_into(grads.qkv, matmul_tn(dqkv, s.n1.y));
  const NormGrads g1 = norm_backward(norm, s.x, w.norm1_gamma, s.n1, matmul_nn(dqkv, w.qkv));
  for (std::size_t j = 0; j < g1.dgamma.size(); ++j) grads.norm1_gamma[j] += g1.dgamma[j];
  for (std::size_t j = 0; j < g1.dbeta.size(); ++j) grads.norm1_beta[j] += g1.dbeta[j];
  return add(dr1, g1.dx);
}

}  // namespace dgx::llm::reference
