#include "dgx/llm/kernels/gemm_case.hpp"

#include <charconv>
#include <stdexcept>

namespace dgx::llm::kernels {

namespace {

std::int64_t parse_dim(std::string_view part, std::string_view whole) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
  if (part.empty() || error != std::errc() || end != part.data() + part.size()) {
    throw std::invalid_argument("gemm shape '" + std::string(whole) + "': expected MxNxK with positive integers");
  }
  if (value < 1 || value > kMaxGemmDim) {
    throw std::invalid_argument("gemm shape '" + std::string(whole) + "': each dimension must be in 1.." +
                                std::to_string(kMaxGemmDim));
  }
  return value;
}

}  // namespace

double GemmCase::bytes() const {
  const double in = precision == Precision::fp8 ? 1.0 : 2.0;
  return in * (double(m) * double(k) + double(n) * double(k)) + 2.0 * double(m) * double(n);
}

std::string GemmCase::label() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
         std::string(to_string(precision));
}

GemmCase parse_gemm_shape(std::string_view text) {
  std::int64_t dims[3] = {0, 0, 0};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    const std::size_t x = i < 2 ? rest.find_first_of("xX") : std::string_view::npos;
    if (i < 2 && x == std::string_view::npos) {
      throw std::invalid_argument("gemm shape '" + std::string(text) + "': expected MxNxK, e.g. 8192x8192x8192");
    }
    dims[i] = parse_dim(rest.substr(0, x), text);
    if (x != std::string_view::npos) {
      rest.remove_prefix(x + 1);
    }
  }
  return GemmCase{dims[0], dims[1], dims[2], Precision::bf16};
}

std::vector<GemmCase> gemm_sweep(const std::vector<std::string>& shapes, const std::vector<std::string>& precisions) {
  if (shapes.empty()) {
    throw std::invalid_argument("gemm.shapes is empty: give at least one MxNxK");
  }
  if (precisions.empty()) {
    throw std::invalid_argument("gemm.precisions is empty: give bf16, fp8 or both");
  }
  std::vector<Precision> parsed;
  for (const std::string& name : precisions) {
    const auto precision = parse_precision(name);
    if (!precision) {
      throw std::invalid_argument("gemm.precisions: unknown precision '" + name + "' (bf16, fp8)");
    }
    parsed.push_back(*precision);
  }
  std::vector<GemmCase> cases;
  for (const std::string& text : shapes) {
    GemmCase shape = parse_gemm_shape(text);
    for (const Precision precision : parsed) {
      shape.precision = precision;
      if (precision == Precision::fp8 && (shape.m % 16 != 0 || shape.n % 16 != 0 || shape.k % 16 != 0)) {
        throw std::invalid_argument("gemm shape '" + text + "': FP8 needs m, n and k multiples of 16 (cuBLASLt)");
      }
      cases.push_back(shape);
    }
  }
  return cases;
}

}  // namespace dgx::llm::kernels
