// Where the comm workloads' buffers live and how their time is taken: host memory with the host's
// communicator (MPI, or a world of one) timed by the wall clock, or device memory with NCCL timed by CUDA events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <dgx/sdk.hpp>

namespace dgx::plugins::comm {

class Backend {
public:
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  virtual ~Backend() = default;

  virtual sdk::Communicator& comm() = 0;
  /// An allocation of `bytes` owned by the backend (device memory for NCCL).
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void upload(void* destination, const void* host_source, std::size_t bytes) = 0;
  virtual void download(void* host_destination, const void* source, std::size_t bytes) = 0;
  /// Runs `body` `iterations` times back to back; returns the elapsed seconds, taken as timing() says. Where each
  /// iteration blocks (host memory), `stop` is asked between iterations, outside the timed region, and the sample
  /// ends (sdk::Cancelled) when every rank agreed to stop; `stop` must be called by every rank alike.
  virtual double time(std::uint32_t iterations, const std::function<void()>& body,
                      const std::function<bool()>& stop) = 0;
  [[nodiscard]] virtual sdk::Timing timing() const = 0;
  /// Waits for every operation issued so far.
  virtual void synchronize() = 0;
  /// What the buffers live on: "host" or the GPU's name.
  [[nodiscard]] virtual std::string device() const = 0;
  /// Per-direction NVLink bandwidth of this GPU in GB/s, when known.
  [[nodiscard]] virtual std::optional<double> nvlink_bandwidth() const { return std::nullopt; }
  // The system profile of configs/systems that describes the GPU, when one does: references are kept per system.
  [[nodiscard]] virtual std::string system() const { return {}; }
};

std::unique_ptr<Backend> make_host_backend(const sdk::Host& host);

/// Whether the NCCL backend can run here: empty when it can, else why not (no CUDA build, no device, no driver).
std::string nccl_unavailable_reason();
std::unique_ptr<Backend> make_nccl_backend(const sdk::Host& host);

}  // namespace dgx::plugins::comm
