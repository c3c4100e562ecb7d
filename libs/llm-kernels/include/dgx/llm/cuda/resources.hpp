// RAII owners of CUDA runtime objects: a stream, an event, a stream-ordered memory pool and a device buffer.
// Destructors never throw; every other failure throws dgx::llm::cuda::Error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace dgx::llm::cuda {

/// A non-blocking stream (it does not synchronize with the legacy default stream).
class Stream {
public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const;

private:
  cudaStream_t stream_ = nullptr;
};

class Event {
public:
  Event();
  ~Event();
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(cudaStream_t stream);
  void synchronize() const;
  /// Milliseconds from `start` to this event (both recorded and complete).
  [[nodiscard]] float milliseconds_since(const Event& start) const;

private:
  cudaEvent_t event_ = nullptr;
};

/// A memory pool of the current device for stream-ordered allocations. It keeps freed memory for reuse (release
/// threshold: unlimited), so allocating in the timed region costs no driver calls, and it tracks the peak of the
/// memory in use: the measured memory high-water mark of a layer.
class MemoryPool {
public:
  MemoryPool();
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  [[nodiscard]] cudaMemPool_t get() const { return pool_; }
  [[nodiscard]] std::uint64_t used_bytes() const;
  [[nodiscard]] std::uint64_t peak_used_bytes() const;
  [[nodiscard]] std::uint64_t reserved_bytes() const;
  /// Restarts the high-water mark from the memory in use now.
  void reset_peak();

private:
  cudaMemPool_t pool_ = nullptr;
};

/// Device memory. With a pool it is allocated and freed in stream order on `stream` (which must outlive it);
/// without one it comes from cudaMalloc.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(std::size_t bytes, const MemoryPool& pool, cudaStream_t stream);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] void* get() const { return data_; }
  template <typename T> [[nodiscard]] T* as() const { return static_cast<T*>(data_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] explicit operator bool() const { return data_ != nullptr; }
  void reset() noexcept;

private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  bool pooled_ = false;
};

}  // namespace dgx::llm::cuda
