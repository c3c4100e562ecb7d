#include "copy_workload.hpp"

#include <cuda_runtime_api.h>

#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"

namespace dgx::plugins::hbm {

using namespace dgx::llm::cuda;

namespace {

constexpr unsigned char kFill = 0x5a;    // the source's bytes: a check finds them in the destination
constexpr std::int64_t kSamples = 4096;  // bytes of the destination read back at each of a few places

}  // namespace

CopyWorkload::CopyWorkload(sdk::Host& host)
    : host_(host), bytes_(read_bytes(host)), check_(host.get_bool("hbm.check")) {}

CopyWorkload::~CopyWorkload() {
  if (stream_) {
    cudaStreamSynchronize(stream_->get());
  }
}

std::int64_t CopyWorkload::read_bytes(const sdk::Host& host) {
  const std::int64_t bytes = host.get_int("hbm.bytes");
  if (bytes < (1 << 20)) {
    throw sdk::InvalidArgument("hbm.bytes must be at least 1M, got " + std::to_string(bytes));
  }
  return bytes;
}

void CopyWorkload::setup() {
  with_sdk_errors([&] {
    device_ = current_device();
    stream_ = std::make_unique<Stream>();
    start_ = std::make_unique<Event>();
    stop_ = std::make_unique<Event>();
    source_ = DeviceBuffer(static_cast<std::size_t>(bytes_));
    destination_ = DeviceBuffer(static_cast<std::size_t>(bytes_));
    DGX_CUDA_CHECK(cudaMemset(source_.get(), kFill, static_cast<std::size_t>(bytes_)));
    DGX_CUDA_CHECK(cudaMemset(destination_.get(), 0, static_cast<std::size_t>(bytes_)));
    DGX_CUDA_CHECK(cudaDeviceSynchronize());
  });
  host_.add_field("device", device_.name);
}

void CopyWorkload::run(const sdk::SampleRequest& request, sdk::SampleResult& result) {
  with_sdk_errors([&] {
    start_->record(stream_->get());
    for (std::uint32_t i = 0; i < request.iterations; ++i) {
      DGX_CUDA_CHECK(cudaMemcpyAsync(destination_.get(), source_.get(), static_cast<std::size_t>(bytes_),
                                     cudaMemcpyDeviceToDevice, stream_->get()));
    }
    stop_->record(stream_->get());
    stop_->synchronize();
    result.seconds = static_cast<double>(stop_->milliseconds_since(*start_)) / 1e3;
    result.timing = sdk::Timing::device_events;
    result.cache = sdk::CacheState::cold;  // a copy of more than the L2 holds streams from HBM
  });
}

std::string CopyWorkload::check() const {
  if (!check_) {
    return "off";
  }
  std::vector<unsigned char> sample(kSamples);
  for (const std::int64_t at : {std::int64_t{0}, bytes_ / 2, bytes_ - kSamples}) {
    with_sdk_errors([&] {
      DGX_CUDA_CHECK(cudaMemcpy(sample.data(), static_cast<const unsigned char*>(destination_.get()) + at,
                                static_cast<std::size_t>(kSamples), cudaMemcpyDeviceToHost));
    });
    for (const unsigned char b : sample) {
      if (b != kFill) {
        throw sdk::CheckFailed("hbm_copy: the destination differs from the source at offset " + std::to_string(at));
      }
    }
  }
  return "ok (3 x 4 KiB sampled)";
}

void CopyWorkload::end_case(std::size_t /*index*/, const sdk::Stats& stats) {
  const double bandwidth = 2.0 * static_cast<double>(bytes_) / stats.median / 1e9;  // read + write
  host_.add_metric("bandwidth", bandwidth, "GB/s");
  if (const auto system = llm::find_system_for_device(device_.name)) {
    host_.add_metric("peak_pct", 100 * bandwidth * 1e9 / system->hbm_bytes_per_s(), "%");
    host_.add_field("system", system->name);
    host_.add_field("peak", std::to_string(system->hbm_tb_s).substr(0, 4) + " TB/s HBM (" + system->name + ")");
  } else {
    host_.add_field("peak", "none: no system profile names " + device_.name);
  }
  host_.add_field("check", check());
  host_.add_field("definition", "bandwidth = 2 x hbm.bytes / time (bytes read + bytes written)", DGX_FIELD_HIDDEN);
}

}  // namespace dgx::plugins::hbm
