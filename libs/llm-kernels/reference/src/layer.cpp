#include "dgx/llm/reference/layer.hpp"

#include <cmath>
#include <stdexcept>

namespace dgx::llm::reference {

namespace {

std::vector<double> random_vector(std::int64_t n, double center, double spread, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(center - spread, center + spread);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) {
    x = uniform(rng);
  }
  return v;
}

Matrix rows_of(const Matrix& m, std::int64_t first, std::int64_t count) {
  Matrix out(count, m.cols);
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::int64_t j = 0; j < m.cols; ++j) {
      out.at(i, j) = m.at(first + i, j);
    }
  }
  return out;
}

void put_rows(Matrix& m, std::int64_t first, const Matrix& rows) {
  for (std::int64_t i = 0; i < rows.rows; ++i) {
    for (std::int64_t j = 0; j < rows.cols; ++j) {
      m.at(first + i, j) = rows.at(i, j);
    }
  }
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
  const kernels::Lora& lora = spec.lora;
  const auto adapter = [&](bool on, std::int64_t out, std::int64_t in) {
    if (!on) {
      return LayerWeights::Adapter{};
    }
    return LayerWeights::Adapter{linear(lora.rank, in),
                                 random_matrix(out, lora.rank, 1.0 / std::sqrt(double(lora.rank)), rng)};
  };
  w.qkv_lora = adapter(lora.enabled() && lora.qkv, r.qkv_width, r.hidden);
  w.proj_lora = adapter(lora.enabled() && lora.proj, r.hidden, r.q_heads * r.head_dim);
  w.fc1_lora = adapter(lora.enabled() && lora.fc1, r.fc1_width, r.hidden);
  w.fc2_lora = adapter(lora.enabled() && lora.fc2, r.hidden, r.ffn);
  return w;
}

LayerWeights LayerWeights::zeros_like(const LayerWeights& w) {
  LayerWeights z = w;
  for (double* x : z.values()) {
    *x = 0.0;
  }
  return z;
}

std::vector<double*> LayerWeights::values() {
  std::vector<double*> out;
  const auto add = [&](std::vector<double>& v) {
    for (double& x : v) {
      out.push_back(&x);
    }
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
  for (Matrix& m : expert_fc1) {
    add(m.v);
  }
  for (Matrix& m : expert_fc2) {
    add(m.v);
  }
  for (Adapter* a : {&qkv_lora, &proj_lora, &fc1_lora, &fc2_lora}) {
    add(a->a.v);
    add(a->b.v);
  }
  return out;
}

ReferenceLayer::ReferenceLayer(kernels::LayerSpec spec) : spec_(spec) {
  kernels::validate(spec_);
  if (spec_.layout.tp != 1 || spec_.layout.cp != 1 || spec_.layout.ep != 1) {
    throw std::invalid_argument("the reference layer computes one rank without parallelism: tp = cp = ep = 1");
  }
  shapes_ = kernels::rank_shapes(spec_);
  positions_ = shapes_.q_len;
  attention_ =
      AttentionShape{shapes_.attention_batch, shapes_.q_len, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, true};
}

Matrix ReferenceLayer::linear(const Matrix& x, const Matrix& weight, const LayerWeights::Adapter& adapter) const {
  Matrix y = matmul_nt(x, weight);
  if (adapter.a.rows == 0 || !spec_.lora.enabled()) {
    return y;
  }
  const double scale = spec_.lora.scale();
  const Matrix up = matmul_nt(matmul_nt(x, adapter.a), adapter.b);
  for (std::size_t i = 0; i < y.v.size(); ++i) {
    y.v[i] += scale * up.v[i];
  }
  return y;
}

Matrix ReferenceLayer::linear_backward(const Matrix& x, const Matrix& dy, const Matrix& weight,
                                       const LayerWeights::Adapter& adapter, Matrix& dweight,
                                       LayerWeights::Adapter& dadapter) const {
  add_into(dweight, matmul_tn(dy, x));
  Matrix dx = matmul_nn(dy, weight);
  if (adapter.a.rows == 0 || !spec_.lora.enabled()) {
    return dx;
  }
  const double scale = spec_.lora.scale();
  Matrix dxa = matmul_nn(dy, adapter.b);  // s · dy · B
  for (double& v : dxa.v) {
    v *= scale;
  }
  Matrix db = matmul_tn(dy, matmul_nt(x, adapter.a));  // s · dyᵀ · (x Aᵀ)
  for (double& v : db.v) {
    v *= scale;
  }
  add_into(dadapter.b, db);
  add_into(dadapter.a, matmul_tn(dxa, x));
  add_into(dx, matmul_nn(dxa, adapter.a));
  return dx;
}

Matrix ReferenceLayer::forward(const LayerWeights& w, const Matrix& x) {
  const Norm norm = spec_.arch.norm;
  SavedState s;
  s.x = x;
  s.n1 = norm_forward(norm, x, w.norm1_gamma, w.norm1_beta);
  s.qkv = linear(s.n1.y, w.qkv, w.qkv_lora);
  if (spec_.arch.rope) {
    rope(s.qkv, positions_, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, spec_.arch.rope_theta, false);
  }
  s.attn = attention_forward(s.qkv, attention_);
  s.r1 = add(x, linear(s.attn.o, w.proj, w.proj_lora));
  s.n2 = norm_forward(norm, s.r1, w.norm2_gamma, w.norm2_beta);
  saved_ = std::move(s);
  return add(saved_->r1, mlp_forward(w, saved_->n2.y));
}

Matrix ReferenceLayer::mlp_forward(const LayerWeights& w, const Matrix& in) {
  const Activation act = spec_.arch.activation;
  if (!spec_.arch.moe()) {
    saved_->f1 = linear(in, w.fc1, w.fc1_lora);
    return linear(activation_forward(act, saved_->f1), w.fc2, w.fc2_lora);
  }
  // Balanced routing (layer_spec.hpp): routed row r carries token r mod tokens, gate 1 / top_k.
  const std::int64_t tokens = in.rows, rows = shapes_.rows_per_expert;
  saved_->permuted = Matrix(tokens * spec_.arch.top_k, in.cols);
  for (std::int64_t r = 0; r < saved_->permuted.rows; ++r) {
    for (std::int64_t j = 0; j < in.cols; ++j) {
      saved_->permuted.at(r, j) = in.at(r % tokens, j);
    }
  }
  Matrix routed(saved_->permuted.rows, in.cols);
  saved_->expert_f1.clear();
  for (std::int64_t e = 0; e < shapes_.local_experts; ++e) {
    saved_->expert_f1.push_back(matmul_nt(rows_of(saved_->permuted, e * rows, rows), w.expert_fc1[std::size_t(e)]));
    put_rows(routed, e * rows,
             matmul_nt(activation_forward(act, saved_->expert_f1.back()), w.expert_fc2[std::size_t(e)]));
  }
  Matrix out(tokens, in.cols);
  const double gate = 1.0 / double(spec_.arch.top_k);
  for (std::int64_t r = 0; r < routed.rows; ++r) {
    for (std::int64_t j = 0; j < in.cols; ++j) {
      out.at(r % tokens, j) += gate * routed.at(r, j);
    }
  }
  return out;
}

Matrix ReferenceLayer::mlp_backward(const LayerWeights& w, const Matrix& dout, LayerWeights& grads) {
  const Activation act = spec_.arch.activation;
  const Matrix& in = saved_->n2.y;
  if (!spec_.arch.moe()) {
    const Matrix a = activation_forward(act, saved_->f1);
    const Matrix da = linear_backward(a, dout, w.fc2, w.fc2_lora, grads.fc2, grads.fc2_lora);
    const Matrix df1 = activation_backward(act, saved_->f1, da);
    return linear_backward(in, df1, w.fc1, w.fc1_lora, grads.fc1, grads.fc1_lora);
  }
  const std::int64_t tokens = in.rows, rows = shapes_.rows_per_expert;
  const double gate = 1.0 / double(spec_.arch.top_k);
  Matrix din(tokens, in.cols);
  for (std::int64_t e = 0; e < shapes_.local_experts; ++e) {
    Matrix dy(rows, in.cols);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < in.cols; ++j) {
        dy.at(i, j) = gate * dout.at((e * rows + i) % tokens, j);
      }
    }
    const Matrix& f1 = saved_->expert_f1[std::size_t(e)];
    add_into(grads.expert_fc2[std::size_t(e)], matmul_tn(dy, activation_forward(act, f1)));
    const Matrix df1 = activation_backward(act, f1, matmul_nn(dy, w.expert_fc2[std::size_t(e)]));
    add_into(grads.expert_fc1[std::size_t(e)], matmul_tn(df1, rows_of(saved_->permuted, e * rows, rows)));
    const Matrix dp = matmul_nn(df1, w.expert_fc1[std::size_t(e)]);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < in.cols; ++j) {
        din.at((e * rows + i) % tokens, j) += dp.at(i, j);
      }
    }
  }
  return din;  // the router's output steers nothing, so its gradient is zero
}

Matrix ReferenceLayer::backward(const LayerWeights& w, const Matrix& dy, LayerWeights& grads) {
  if (!saved_) {
    throw std::logic_error("ReferenceLayer::backward needs a forward first");
  }
  const Norm norm = spec_.arch.norm;
  SavedState& s = *saved_;
  const NormGrads g2 = norm_backward(norm, s.r1, w.norm2_gamma, s.n2, mlp_backward(w, dy, grads));
  for (std::size_t j = 0; j < g2.dgamma.size(); ++j) {
    grads.norm2_gamma[j] += g2.dgamma[j];
  }
  for (std::size_t j = 0; j < g2.dbeta.size(); ++j) {
    grads.norm2_beta[j] += g2.dbeta[j];
  }
  const Matrix dr1 = add(dy, g2.dx);

  const Matrix d_o = linear_backward(s.attn.o, dr1, w.proj, w.proj_lora, grads.proj, grads.proj_lora);
  Matrix dqkv = attention_backward(s.qkv, s.attn, d_o, attention_);
  if (spec_.arch.rope) {
    rope(dqkv, positions_, shapes_.q_heads, shapes_.kv_heads, shapes_.head_dim, spec_.arch.rope_theta, true);
  }
  const Matrix dn1 = linear_backward(s.n1.y, dqkv, w.qkv, w.qkv_lora, grads.qkv, grads.qkv_lora);
  const NormGrads g1 = norm_backward(norm, s.x, w.norm1_gamma, s.n1, dn1);
  for (std::size_t j = 0; j < g1.dgamma.size(); ++j) {
    grads.norm1_gamma[j] += g1.dgamma[j];
  }
  for (std::size_t j = 0; j < g1.dbeta.size(); ++j) {
    grads.norm1_beta[j] += g1.dbeta[j];
  }
  return add(dr1, g1.dx);
}

}  // namespace dgx::llm::reference
