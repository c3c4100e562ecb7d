// Device probe: asks the CUDA runtime what GPUs this process can see. No workloads; dgxhost calls probe() to
// fill the "gpus" and "software" entries of the results' context.
#include <dgx/sdk.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace dgx::plugins::cuda_probe {

namespace {

std::string error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

std::string version_text(int version) {  // CUDA encodes 13.0 as 13000
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  return cudaDeviceGetAttribute(&value, attr, device) == cudaSuccess ? value : 0;
}

}  // namespace

void probe(dgx::sdk::Host& /*host*/, dgx::sdk::ProbeSink& sink) {
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    sink.add_software("cuda_runtime", version_text(runtime));
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    sink.add_software("cuda_driver", version_text(driver));
  }

  int count = 0;  // stays 0 when the call fails (no driver): that is the answer, not an error
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver && driver == 0) {
    sink.set_status("no CUDA driver (" + error_text(status) + ")");
    return;
  }
  if (status != cudaSuccess) {
    sink.set_status("no usable CUDA device (" + error_text(status) + ")");
    return;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, d) != cudaSuccess) {
      continue;
    }
    dgx::sdk::DeviceInfo info;
    info.index = d;
    info.name = props.name;
    char uuid[64];
    const auto* b = reinterpret_cast<const unsigned char*>(props.uuid.bytes);
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    info.uuid = uuid;
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) {
      info.pci_bus_id = bus;
    }
    info.cc_major = props.major;
    info.cc_minor = props.minor;
    info.multiprocessors = props.multiProcessorCount;
    info.memory_bytes = props.totalGlobalMem;
    info.l2_cache_bytes = static_cast<std::uint64_t>(props.l2CacheSize);
    info.clock_khz = attribute(cudaDevAttrClockRate, d);
    info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, d);
    info.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d);
    sink.add_device(info);
  }
  if (count == 0) {
    sink.set_status("the CUDA runtime reports no devices");
  }
}

}  // namespace dgx::plugins::cuda_probe

namespace {

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec spec{.name = "cuda-probe",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "Reports CUDA devices and versions for the results' context"};
  spec.probe = dgx::plugins::cuda_probe::probe;
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
