// Plugin gemm: one workload, the GEMM sweep. Loading and init make no CUDA call, so the plugin loads on a machine
// without a driver; can_measure checks the configuration, then the device.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"

#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "gemm_workload.hpp"

namespace {

using dgx::sdk::Param;

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec spec{.name = "gemm",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "cuBLASLt GEMM sweep: BF16 and FP8 TFLOP/s and % of peak"};
  spec.add_workload<dgx::plugins::gemm::GemmWorkload>({
      .name = "gemm",
      .kind = dgx::sdk::Kind::micro,
      .summary = "D = A·Bᵀ through cuBLASLt for shapes × precisions: TFLOP/s, % of peak, sampled FP64 check",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3},
      .params = {Param::string_list("gemm.shapes", {"4096x4096x4096", "8192x8192x8192"},
                                    "GEMM shapes MxNxK: D[M,N] = A[M,K]·B[N,K]ᵀ (both K-contiguous)"),
                 Param::string_list("gemm.precisions", {"bf16", "fp8"},
                                    "bf16: BF16 inputs; fp8: E4M3 inputs with per-tensor scales; BF16 output",
                                    "bf16|fp8"),
                 dgx::llm::kernels::peak_param("gemm.peak_bf16", dgx::llm::kernels::Precision::bf16),
                 dgx::llm::kernels::peak_param("gemm.peak_fp8", dgx::llm::kernels::Precision::fp8),
                 Param::boolean("gemm.fp8_fast_accum", true,
                                "FP8: Hopper's fast accumulation (as Transformer Engine's forward GEMMs)"),
                 Param::integer("gemm.candidates", 8, "cuBLASLt heuristic algorithms timed per shape at setup"),
                 Param::boolean("gemm.check", true, "check sampled entries against an FP64 reference"),
                 Param::integer("gemm.seed", 1, "seed of the random operands (fresh per case)")},
      .modes = {dgx::sdk::Mode::measure},
      .can_measure =
          [](dgx::sdk::Host& host) {
            (void)dgx::plugins::gemm::GemmWorkload::read_sweep(host);  // a config error first: exit 2, not 4
            dgx::llm::cuda::require_cuda_device();
          },
      .metrics = {dgx::sdk::MetricSpec::higher("tflops", "TFLOP/s", "2·M·N·K / the median time"),
                  dgx::sdk::MetricSpec::higher("peak_pct", "%", "TFLOP/s as a percent of the dense peak (info.peak)")},
      .identity_keys = {"gemm.m", "gemm.n", "gemm.k", "precision", "gemm.fp8_fast_accum"},
  });
  spec.init = [](dgx::sdk::Host& host) { dgx::catalog::search_host_dirs(host); };  // a user's systems
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
