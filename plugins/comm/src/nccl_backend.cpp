// Device buffers and NCCL, timed with CUDA events on the communicator's stream. The GPU is chosen by the rank's
// local rank, so one rank per GPU on each node.
#include <cuda_runtime_api.h>

#include <vector>

#include "backend.hpp"
#include "dgx/llm/catalog.hpp"
#include "nccl_communicator.hpp"

namespace dgx::plugins::comm {

namespace {

// Per-direction NVLink bandwidth of the GPU's system profile (configs/systems: the one home of such facts).
std::optional<double> nvlink_for(const std::string& device_name) {
  const auto system = llm::find_system_for_device(device_name);
  return system ? std::optional<double>(system->nvlink_gb_s) : std::nullopt;
}

class NcclBackend final : public Backend {
public:
  explicit NcclBackend(const sdk::Host& host) {
    int devices = 0;
    check_cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    const int device = host.ranks().local_rank % devices;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp props{};
    check_cuda(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
    device_name_ = props.name;
    try {
      check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
      check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
      check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
      comm_ = std::make_unique<NcclCommunicator>(host, stream_);
    } catch (...) {
      release();  // a throwing constructor runs no destructor: ncclCommInitRank failing would leak these
      throw;
    }
  }
  ~NcclBackend() override { release(); }

  sdk::Communicator& comm() override { return *comm_; }
  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
    allocations_.push_back(p);
    return p;
  }
  // On the collectives' stream, then waited for. A cudaMemcpy from pageable memory may return before its DMA lands
  // (CUDA's "API synchronization behavior"), and it lands on the legacy stream, which this non-blocking stream does
  // not wait for: the checked collective that follows an upload would race with it.
  void upload(void* destination, const void* source, std::size_t bytes) override {
    check_cuda(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync to the device");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  void download(void* destination, const void* source, std::size_t bytes) override {
    check_cuda(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync from the device");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  double time(std::uint32_t iterations, const std::function<void()>& body,
              const std::function<bool()>& /*stop*/) override {  // enqueued on the stream: over in milliseconds
    check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    for (std::uint32_t i = 0; i < iterations; ++i) {
      body();
    }
    check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) / 1e3;
  }
  [[nodiscard]] sdk::Timing timing() const override { return sdk::Timing::device_events; }
  void synchronize() override { comm_->synchronize(); }
  [[nodiscard]] std::string device() const override { return device_name_; }
  [[nodiscard]] std::optional<double> nvlink_bandwidth() const override { return nvlink_for(device_name_); }
  [[nodiscard]] std::string system() const override {
    const auto system = llm::find_system_for_device(device_name_);
    return system ? system->name : std::string();
  }

private:
  void release() noexcept {
    comm_.reset();
    for (void* p : allocations_) {
      cudaFree(p);
    }
    allocations_.clear();
    if (stop_ != nullptr) {
      cudaEventDestroy(stop_);
    }
    if (start_ != nullptr) {
      cudaEventDestroy(start_);
    }
    if (stream_ != nullptr) {
      cudaStreamDestroy(stream_);
    }
    stop_ = start_ = nullptr;
    stream_ = nullptr;
  }

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  std::unique_ptr<NcclCommunicator> comm_;
  std::vector<void*> allocations_;
  std::string device_name_;
};

}  // namespace

std::string nccl_unavailable_reason() {
  int devices = 0;  // stays 0 when there is no driver
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) {
    return std::string("no CUDA device (") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")";
  }
  if (devices == 0) {
    return "no CUDA device";
  }
  return {};
}

std::unique_ptr<Backend> make_nccl_backend(const sdk::Host& host) { return std::make_unique<NcclBackend>(host); }

}  // namespace dgx::plugins::comm
