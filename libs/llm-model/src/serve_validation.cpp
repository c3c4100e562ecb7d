#include "dgx/llm/serve_validation.hpp"

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_disaggregated.hpp"
#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/serve_simulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <set>

namespace dgx::llm {

namespace {

/// Least squares of relative errors: minimise Σ ((Σ_j x_j·a_ij) / y_i − 1)², i.e. rows a_ij / y_i against 1, over the
/// terms in `use`; a coefficient that comes out negative is dropped and the rest refitted. N terms at most 3.
template <std::size_t N>
std::array<double, N> weighted_least_squares(const std::vector<std::array<double, N>>& terms,
                                             const std::vector<double>& measured, const std::vector<double>& weights,
                                             std::array<bool, N> use) {
  std::array<double, N> x{};
  for (std::size_t round = 0; round <= N; ++round) {
    std::array<std::array<double, N + 1>, N> m{};  // normal equations [A^T A | A^T 1]
    for (std::size_t i = 0; i < terms.size(); ++i) {
      for (std::size_t r = 0; r < N; ++r) {
        const double ar = use[r] ? terms[i][r] / measured[i] : 0;
        for (std::size_t c = 0; c < N; ++c) {
          m[r][c] += weights[i] * ar * (use[c] ? terms[i][c] / measured[i] : 0);
        }
        m[r][N] += weights[i] * ar;
      }
    }
    for (std::size_t r = 0; r < N; ++r) {
      if (!use[r]) {
        m[r][r] = 1;  // x_r = 0
      }
    }
    // Gaussian elimination with partial pivoting.
    for (std::size_t c = 0; c < N; ++c) {
      std::size_t pivot = c;
      for (std::size_t r = c + 1; r < N; ++r) {
        pivot = std::abs(m[r][c]) > std::abs(m[pivot][c]) ? r : pivot;
      }
      std::swap(m[c], m[pivot]);
      if (std::abs(m[c][c]) < 1e-300) {
        m[c][c] = 1;
        m[c][N] = 0;
      }
      for (std::size_t r = 0; r < N; ++r) {
        if (r != c) {
          const double f = m[r][c] / m[c][c];
          for (std::size_t k = c; k <= N; ++k) {
            m[r][k] -= f * m[c][k];
          }
        }
      }
    }
    bool negative = false;
    for (std::size_t r = 0; r < N; ++r) {
      x[r] = use[r] ? m[r][N] / m[r][r] : 0;
      if (x[r] < 0) {
        use[r] = false;
        negative = true;
      }
    }
    if (!negative) {
      return x;
    }
  }
  for (std::size_t r = 0; r < N; ++r) {
    x[r] = use[r] ? x[r] : 0;
  }
  return x;
}

/// Relative errors beyond this weigh less (Huber's loss, by iteratively reweighted least squares): a few rows the
/// physical model misses by a factor (a layout it does not describe) must not pull the correction of all the others.
constexpr double kHuberDelta = 0.25;
constexpr int kReweightings = 8;

/// The coefficients minimising Huber's loss of the relative errors, non-negative.
template <std::size_t N>
std::array<double, N> relative_least_squares(const std::vector<std::array<double, N>>& terms,
                                             const std::vector<double>& measured, std::array<bool, N> use) {
  std::vector<double> weights(terms.size(), 1.0);
  std::array<double, N> x{};
  for (int round = 0; round < kReweightings; ++round) {
    x = weighted_least_squares(terms, measured, weights, use);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      double predicted = 0;
      for (std::size_t j = 0; j < N; ++j) {
        predicted += x[j] * terms[i][j];
      }
      const double residual = std::abs(predicted / measured[i] - 1);
      weights[i] = residual <= kHuberDelta ? 1.0 : kHuberDelta / residual;
    }
  }
  return x;
}

double quantile_abs(const std::vector<double>& errors, double p) {
  std::vector<double> a;
  a.reserve(errors.size());
  for (const double e : errors) {
    a.push_back(std::abs(e));
  }
  return quantile(a, p);
}

}  // namespace

EngineCalibration fit_calibration(const std::vector<CalibrationSample>& samples) {
  EngineCalibration c;
  if (samples.empty()) {
    return c;
  }
  std::vector<std::array<double, 4>> ttft_terms;
  std::vector<std::array<double, 3>> tpot_terms;
  std::vector<double> ttft, tpot;
  std::set<std::string> stacks;
  for (const CalibrationSample& s : samples) {
    ttft_terms.push_back({s.model.ttft, s.model.wave, s.model.tpot, 1.0});
    tpot_terms.push_back({s.model.tpot, s.model.kernels, 1.0});
    ttft.push_back(s.ttft);
    tpot.push_back(s.tpot);
    stacks.insert(s.stack);
  }
  const auto t = relative_least_squares<4>(ttft_terms, ttft, {true, true, true, true});
  const auto p = relative_least_squares<3>(tpot_terms, tpot, {true, true, true});
  c.ttft_scale = t[0];
  c.ttft_wave = t[1];
  c.ttft_iterations = t[2];
  c.ttft_offset = t[3];
  c.tpot_scale = p[0];
  c.tpot_per_kernel = p[1];
  c.tpot_offset = p[2];
  c.rows = static_cast<int>(samples.size());
  c.stacks = static_cast<int>(stacks.size());
  return c;
}

std::vector<CrossValidated> leave_one_stack_out(const std::vector<CalibrationSample>& samples) {
  std::set<std::string> stacks;
  for (const CalibrationSample& s : samples) {
    stacks.insert(s.stack);
  }
  std::vector<CrossValidated> out;
  out.reserve(samples.size());
  for (const std::string& held : stacks) {
    std::vector<CalibrationSample> train;
    for (const CalibrationSample& s : samples) {
      if (s.stack != held) {
        train.push_back(s);
      }
    }
    // A stack alone in its engine and mode has nothing to learn from: the physical model unchanged.
    const EngineCalibration fit = train.empty() ? EngineCalibration{} : fit_calibration(train);
    for (const CalibrationSample& s : samples) {
      if (s.stack == held) {
        out.push_back({.sample = s, .ttft = calibrated_ttft(fit, s.model), .tpot = calibrated_tpot(fit, s.model)});
      }
    }
  }
  return out;
}

EngineCalibration calibrate(const std::vector<CalibrationSample>& samples,
                            const std::vector<CrossValidated>& validated) {
  EngineCalibration c = fit_calibration(samples);
  std::vector<double> ttft, tpot;
  for (const CrossValidated& v : validated) {
    ttft.push_back(v.ttft_error());
    tpot.push_back(v.tpot_error());
  }
  const auto mean_abs = [](const std::vector<double>& e) {
    double sum = 0;
    for (const double x : e) {
      sum += std::abs(x);
    }
    return e.empty() ? 0.0 : sum / static_cast<double>(e.size());
  };
  c.cv_ttft = mean_abs(ttft);
  c.cv_tpot = mean_abs(tpot);
  c.band_ttft = quantile_abs(ttft, 0.9);
  c.band_tpot = quantile_abs(tpot, 0.9);
  return c;
}

std::vector<MeasuredProjection> project_measured(const std::vector<MeasuredServing>& rows) {
  std::map<std::string, std::unique_ptr<ServeModel>> models;
  std::vector<MeasuredProjection> out;
  out.reserve(rows.size());
  for (const MeasuredServing& r : rows) {
    MeasuredProjection p{.row = r, .sample = {}, .failure = {}};
    const std::string key = r.model + "@" + r.system;
    if (!models.contains(key)) {
      auto model = find_model(r.model);
      auto system = find_system(r.system);
      models[key] = model && system ? std::make_unique<ServeModel>(*model, *system) : nullptr;
    }
    if (!models[key]) {
      p.failure = "not in the catalog";
    } else if (!r.concurrency_stated) {
      p.failure = "the source states no concurrency (silicon_concurrency): the load is not known";
    } else {
      MeasuredServing physical = r;
      physical.config.engine_calibration = false;
      const Expected<ServeProjection> projection =
          r.disaggregated ? project_disaggregated(*models[key], disaggregated_config(physical), std::nullopt)
                          : models[key]->project(physical.config);
      if (!projection) {
        p.failure = projection.error().message;
      } else {
        p.sample = CalibrationSample{.stack = r.stack(),
                                     .model = {.ttft = projection->ttft.mean,
                                               .tpot = projection->tpot.mean,
                                               .wave = projection->prefill_wave,
                                               .kernels = projection->decode_step.kernels},
                                     .ttft = r.ttft_ms * 1e-3,
                                     .tpot = r.tpot_ms * 1e-3};
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

EngineCalibration calibrate_engine(const std::vector<MeasuredProjection>& projected, ServeEngine engine,
                                   std::vector<CrossValidated>* validated) {
  std::vector<CalibrationSample> samples;
  for (const MeasuredProjection& p : projected) {
    if (p.failure.empty() && !p.row.disaggregated && p.row.config.engine == engine) {
      samples.push_back(p.sample);
    }
  }
  std::vector<CrossValidated> cv = leave_one_stack_out(samples);
  EngineCalibration c = calibrate(samples, cv);
  if (validated != nullptr) {
    *validated = std::move(cv);
  }
  return c;
}

}  // namespace dgx::llm
