#include "decode_workload.hpp"

#include <algorithm>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "dgx/llm/workload/serve_measured_ops.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::InvalidArgument;
namespace kernels = llm::kernels;

}  // namespace

std::vector<dgx::sdk::Param> decode_params() {
  using dgx::sdk::Param;
  return {
      Param::string(decode_key::model, "llama3.1-8b", "dense model to decode (it must fit this GPU)"),
      Param::string(decode_key::precision, "bf16", "weights and GEMMs of the linear layers", "bf16|fp8"),
      Param::string(decode_key::kv_precision, "auto", "KV cache format; auto: fp8 with fp8 weights, else bf16",
                    "auto|bf16|fp8"),
      Param::integer(decode_key::context, 1024, "tokens in every sequence's KV cache when a batch size starts",
                     "tokens"),
      Param::int_list(decode_key::batches, {1, 2, 4, 8, 16, 32, 64, 128, 256},
                      "batch sizes: one measured row each (TPOT, tokens/s, MBU = (weight + KV bytes read per "
                      "iteration) / TPOT / HBM peak)",
                      "sequences"),
  };
}

void require_decode_runner() {
  if (const std::string reason = serve_probe_unavailable(); !reason.empty()) {
    throw dgx::sdk::NoDevice(reason);
  }
}

kernels::DecodeModelSpec decode_spec(const dgx::sdk::Host& host, std::vector<std::int64_t>& batches) {
  const llm::ModelConfig model = llm::workload::lookup_model(host.get_string(decode_key::model), decode_key::model);
  if (model.moe()) {
    throw dgx::sdk::Unsupported("llm-decode runs dense models; " + model.name +
                                " is a mixture of experts (llm-inference measures its layers)");
  }
  kernels::DecodeModelSpec spec;
  spec.arch = llm::workload::kernels_architecture(model);
  spec.layers = model.layers;
  const std::string precision = host.get_string(decode_key::precision);
  const auto parsed = kernels::parse_precision(precision);
  if (!parsed) {
    throw InvalidArgument(std::string(decode_key::precision) + ": '" + precision + "' is not one of bf16, fp8");
  }
  spec.precision = *parsed;
  const std::string kv = host.get_string(decode_key::kv_precision);
  if (kv != "auto" && kv != "bf16" && kv != "fp8") {
    throw InvalidArgument(std::string(decode_key::kv_precision) + ": '" + kv + "' is not one of auto, bf16, fp8");
  }
  const bool fp8_kv = kv == "fp8" || (kv == "auto" && spec.precision == kernels::Precision::fp8);
  spec.kv = fp8_kv ? kernels::KvFormat::fp8 : kernels::KvFormat::bf16;
  spec.context = host.get_int(decode_key::context);
  batches = host.get_int_list(decode_key::batches);
  if (batches.empty() || *std::min_element(batches.begin(), batches.end()) < 1) {
    throw InvalidArgument(std::string(decode_key::batches) + " must list batch sizes of at least 1");
  }
  spec.max_batch = *std::max_element(batches.begin(), batches.end());
  try {
    kernels::validate(spec);
  } catch (const std::invalid_argument& e) {
    throw InvalidArgument(model.name + ": " + e.what());
  }
  return spec;
}

DecodeWorkload::DecodeWorkload(dgx::sdk::Host& host) : host_(host) {
  spec_ = decode_spec(host, batches_);
  model_name_ = host.get_string(decode_key::model);
}

void DecodeWorkload::setup() {
  runner_ = make_decode_runner(spec_);
  const auto system = llm::find_system_for_device(runner_->device());
  if (!system) {
    host_.warn(runner_->device() + " has no system profile in configs/systems: MBU is not reported");
  } else {
    peak_bytes_per_s_ = system->hbm_bytes_per_s();
    peak_label_ = mbu_peak_label(*system);
  }
  host_.note(dgx::sdk::NotePlacement::before, "Measured",
             "The whole " + model_name_ + " (" + std::to_string(spec_.layers) + " layers, " +
                 dgx::sdk::text::fixed(kernels::model_weight_bytes(spec_) / 1e9, 1) + " GB of " +
                 std::string(kernels::to_string(spec_.precision)) + " weights, " +
                 std::string(kernels::to_string(spec_.kv)) + " KV cache) decoding on " + runner_->device() +
                 ": one CUDA graph per batch size (every layer, the LM head, a greedy token), replayed by the runner; "
                 "every sequence starts at " +
                 std::to_string(spec_.context) + " tokens of context and grows by one per iteration.");
}

dgx::sdk::Case DecodeWorkload::begin_case(std::size_t index) {
  runner_->prepare(batches_.at(index));
  dgx::sdk::Case c;
  c.label = model_name_ + " decode, batch " + std::to_string(batches_[index]);
  c.set("batch", batches_[index]);
  c.set("precision", std::string(kernels::to_string(spec_.precision)));
  c.set("serve.kv_precision", std::string(kernels::to_string(spec_.kv)));
  c.set("device", runner_->device());
  return c;
}

void DecodeWorkload::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  result.seconds = runner_->time_iterations(static_cast<int>(request.iterations));
  result.timing = dgx::sdk::Timing::device_events;
  result.cache = dgx::sdk::CacheState::hot;
}

void DecodeWorkload::end_case(std::size_t index, const dgx::sdk::Stats& stats) {
  const double tpot = stats.median;
  host_.add_metric("tpot", tpot, "s", 0, "TPOT");
  host_.add_metric("output_tokens_per_s", static_cast<double>(batches_[index]) / tpot, "tokens/s", 0, "tok/s");
  host_.add_metric("output_tokens_per_s_per_user", 1.0 / tpot, "tokens/s", 0, "tok/s/user");
  host_.add_metric("bytes_per_iteration", runner_->bytes_per_iteration(), "B", DGX_METRIC_HIDDEN);
  if (peak_bytes_per_s_ > 0) {
    host_.add_metric("mbu", 100 * runner_->bytes_per_iteration() / tpot / peak_bytes_per_s_, "%", 0, "MBU %");
    host_.add_field("mbu_peak", peak_label_, DGX_FIELD_HIDDEN);
  }
}

}  // namespace dgx::plugins::llm_inference
