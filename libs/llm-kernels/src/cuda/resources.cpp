#include "dgx/llm/cuda/resources.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <limits>

namespace dgx::llm::cuda {

Stream::Stream() { DGX_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (stream_ != nullptr) {
    cudaStreamDestroy(stream_);
  }
}
void Stream::synchronize() const { DGX_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event() { DGX_CUDA_CHECK(cudaEventCreate(&event_)); }
Event::~Event() {
  if (event_ != nullptr) {
    cudaEventDestroy(event_);
  }
}
Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) {
      cudaEventDestroy(event_);
    }
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}
void Event::record(cudaStream_t stream) { DGX_CUDA_CHECK(cudaEventRecord(event_, stream)); }
void Event::synchronize() const { DGX_CUDA_CHECK(cudaEventSynchronize(event_)); }
float Event::milliseconds_since(const Event& start) const {
  float ms = 0;
  DGX_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
  return ms;
}

MemoryPool::MemoryPool() {
  int device = 0;
  DGX_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  DGX_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  if (const cudaError_t status = cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep);
      status != cudaSuccess) {
    cudaMemPoolDestroy(pool_);  // the destructor does not run for a constructor that throws
    pool_ = nullptr;
    detail::throw_cuda(status, "cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep)", __FILE__,
                       __LINE__);
  }
}
MemoryPool::~MemoryPool() {
  if (pool_ != nullptr) {
    cudaMemPoolDestroy(pool_);  // deferred by the runtime while allocations are outstanding
  }
}
namespace {
std::uint64_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  std::uint64_t value = 0;
  DGX_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
  return value;
}
}  // namespace
std::uint64_t MemoryPool::used_bytes() const { return pool_attribute(pool_, cudaMemPoolAttrUsedMemCurrent); }
std::uint64_t MemoryPool::peak_used_bytes() const { return pool_attribute(pool_, cudaMemPoolAttrUsedMemHigh); }
std::uint64_t MemoryPool::reserved_bytes() const { return pool_attribute(pool_, cudaMemPoolAttrReservedMemCurrent); }
void MemoryPool::reset_peak() {
  std::uint64_t zero = 0;  // the only value the attribute accepts: restart from the current use
  DGX_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) {
    DGX_CUDA_CHECK(cudaMalloc(&data_, bytes));
  }
}
DeviceBuffer::DeviceBuffer(std::size_t bytes, const MemoryPool& pool, cudaStream_t stream)
    : bytes_(bytes), stream_(stream), pooled_(true) {
  if (bytes > 0) {
    DGX_CUDA_CHECK(cudaMallocFromPoolAsync(&data_, bytes, pool.get(), stream));
  }
}
DeviceBuffer::~DeviceBuffer() { reset(); }
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    stream_ = other.stream_;
    pooled_ = other.pooled_;
  }
  return *this;
}
void DeviceBuffer::reset() noexcept {
  if (data_ != nullptr) {
    if (pooled_) {
      cudaFreeAsync(data_, stream_);  // stream-ordered: after the work already queued that uses it
    } else {
      cudaFree(data_);
    }
  }
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace dgx::llm::cuda
