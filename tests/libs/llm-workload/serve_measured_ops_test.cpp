// Compiled into llm_inference_tests, the binary whose name these tests' CTest names carry since they tested the
// llm-inference plugin's measured_ops.cpp (tests/plugins/llm-inference/CMakeLists.txt).
#include "dgx/llm/workload/serve_measured_ops.hpp"

#include <dgx/sdk/error.hpp>
#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/llm/catalog.hpp"

using namespace dgx;
using namespace dgx::llm::workload;

namespace {

llm::Op gemm(std::int64_t m) {
  return llm::Op{
      .name = "fc1", .precision = llm::Precision::fp8, .shape = llm::GemmShape{.m = m, .n = 28672, .k = 8192}};
}

}  // namespace

TEST_CASE("a measured op replaces the roofline at its shape and corrects it at others, interpolated in log size") {
  const llm::RooflineProvider roofline(llm::find_system("h200-sxm").value(), llm::RooflineProvider::GemmFill::split_k);
  MeasuredRatios measured(roofline);
  measured.add(gemm(1), 2 * roofline.seconds(gemm(1)));
  measured.add(gemm(64), 4 * roofline.seconds(gemm(64)));
  CHECK(measured.seconds(gemm(1)) == doctest::Approx(2 * roofline.seconds(gemm(1))));
  CHECK(measured.seconds(gemm(64)) == doctest::Approx(4 * roofline.seconds(gemm(64))));
  CHECK(measured.seconds(gemm(8)) == doctest::Approx(3 * roofline.seconds(gemm(8))));  // log2(8) is halfway to 64
  CHECK(measured.seconds(gemm(512)) == doctest::Approx(4 * roofline.seconds(gemm(512))));
  CHECK(measured.source(gemm(8)) == "measured");
  const llm::Op other{.name = "qkv", .shape = llm::GemmShape{.m = 8, .n = 10240, .k = 8192}};
  CHECK(measured.seconds(other) == roofline.seconds(other));
  CHECK(measured.source(other) == "roofline");
}

TEST_CASE("measured ops meet the model's by name, GEMMs also by their weight's dimensions") {
  const llm::RooflineProvider roofline(llm::find_system("h200-sxm").value(), llm::RooflineProvider::GemmFill::split_k);
  MeasuredRatios measured(roofline);
  const llm::ModelConfig model = llm::find_model("llama3.1-8b").value();
  const llm::ServeShape shape{.layout = {.tp = 1}, .precision = llm::Precision::bf16};
  const auto ops = llm::serve_layer_ops(model, roofline.system(), shape,
                                        {.decode_seqs = 8, .decode_kv_tokens = 8 * 1000.0, .logit_rows = 8});
  llm::kernels::OpTiming qkv;
  qkv.name = "qkv";
  qkv.kind = llm::kernels::OpKind::gemm;
  qkv.gemm = {8, 4096, 6144, 1};  // transposed: the weight's dimensions in the other order
  qkv.seconds = 1e-4;
  llm::kernels::OpTiming wrong = qkv;
  wrong.name = "fc1";  // fc1's weight is not 6144 x 4096
  llm::kernels::OpTiming attention;
  attention.name = "decode_attention";
  attention.seconds = 2e-5;
  const ServeMatchReport report = apply_serve_measurements({qkv, wrong, attention}, ops, measured);
  CHECK(report.matched == 2);
  CHECK(report.model_ops == static_cast<int>(ops.size()));
  CHECK(std::find(report.unmatched.begin(), report.unmatched.end(), "fc1") != report.unmatched.end());
  CHECK(measured.size() == 2);
}

TEST_CASE("the kernels library is given the per-rank layer, and refuses what it cannot run") {
  const llm::ModelConfig model = llm::find_model("llama3.1-70b").value();
  const auto spec = serve_layer_spec(
      model, {.layout = {.tp = 2}, .precision = llm::Precision::fp8, .kv_precision = llm::Precision::fp8}, 64, 1500,
      1000);
  CHECK(spec.tp == 2);
  CHECK(spec.precision == llm::kernels::Precision::fp8);
  CHECK(spec.kv == llm::kernels::KvFormat::fp8);
  CHECK(spec.decode_batch == 64);
  CHECK(spec.prefill_tokens == 1000);
  CHECK(spec.arch.hidden == 8192);
  const llm::ServeShape fp4{.layout = {}, .precision = llm::Precision::nvfp4, .kv_precision = llm::Precision::fp8};
  CHECK_THROWS_AS((void)serve_layer_spec(model, fp4, 1, 1, 0), dgx::sdk::Unsupported);
}
