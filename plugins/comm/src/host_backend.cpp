// Host buffers and the host's communicator: MPI with several ranks, a world of one otherwise.
#include <chrono>
#include <cstring>
#include <vector>

#include "backend.hpp"

namespace dgx::plugins::comm {

namespace {

class HostBackend final : public Backend {
public:
  explicit HostBackend(const sdk::Host& host) : comm_(host.host_comm()) {}

  sdk::Communicator& comm() override { return comm_; }
  void* allocate(std::size_t bytes) override {
    allocations_.emplace_back(bytes);
    return allocations_.back().data();
  }
  void upload(void* destination, const void* source, std::size_t bytes) override {
    if (destination != source) {
      std::memcpy(destination, source, bytes);
    }
  }
  void download(void* destination, const void* source, std::size_t bytes) override {
    if (destination != source) {
      std::memcpy(destination, source, bytes);
    }
  }
  double time(std::uint32_t iterations, const std::function<void()>& body, const std::function<bool()>& stop) override {
    double seconds = 0;
    for (std::uint32_t i = 0; i < iterations; ++i) {
      if (i > 0 && stop()) {  // a loaded machine: the runner's time is up between two blocking collectives
        throw sdk::Cancelled("stopped between iterations: the runner's time or Ctrl-C");
      }
      const auto start = std::chrono::steady_clock::now();
      body();  // host collectives are blocking
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return seconds;
  }
  [[nodiscard]] sdk::Timing timing() const override { return sdk::Timing::plugin_wall; }
  void synchronize() override {}
  [[nodiscard]] std::string device() const override { return "host"; }

private:
  sdk::HostCommunicator comm_;
  std::vector<std::vector<std::byte>> allocations_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(const sdk::Host& host) { return std::make_unique<HostBackend>(host); }

}  // namespace dgx::plugins::comm
