// hbm_copy: device-to-device copy bandwidth (bytes read + written per second).
#pragma once

#include <dgx/sdk.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/resources.hpp"

namespace dgx::plugins::hbm {

class CopyWorkload final : public sdk::Workload {
public:
  explicit CopyWorkload(sdk::Host& host);
  ~CopyWorkload() override;

  static std::int64_t read_bytes(const sdk::Host& host);

  void setup() override;
  void run(const sdk::SampleRequest& request, sdk::SampleResult& result) override;
  void end_case(std::size_t index, const sdk::Stats& stats) override;

private:
  [[nodiscard]] std::string check() const;

  sdk::Host& host_;
  std::int64_t bytes_;
  bool check_;
  llm::cuda::DeviceProperties device_;
  std::unique_ptr<llm::cuda::Stream> stream_;
  std::unique_ptr<llm::cuda::Event> start_, stop_;
  llm::cuda::DeviceBuffer source_, destination_;
};

}  // namespace dgx::plugins::hbm
