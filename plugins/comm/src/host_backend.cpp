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
  double time(std::uint32_t iterations, const std::function<void()>& body) override {
    const auto start = std::chrono::steady_clock::now();
    for (std::uint32_t i = 0; i < iterations; ++i) {
      body();  // host collectives are blocking
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
