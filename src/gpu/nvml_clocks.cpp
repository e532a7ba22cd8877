#include "gpu/nvml_clocks.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

namespace cl2 {

namespace {

// NVML's ABI as nvml.h declares it (stable since NVML 4): every call returns nvmlReturn_t, an int
// enum whose success is 0; a device is an opaque pointer; NVML_CLOCK_SM is 1.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

// nvmlClocksThrottleReasonHwSlowdown, SwThermalSlowdown, HwThermalSlowdown, HwPowerBrakeSlowdown.
// Not SwPowerCap (0x4): under GEMM load the H200 runs at its power cap as its steady state (the
// square run's winners at 1395-1425 MHz, every round capped), so discarding those rounds bought
// nothing and doubled a grid-125 run (21,312 rounds discarded over 47 shapes).
constexpr unsigned long long kThrottleMask = 0x8ull | 0x20ull | 0x40ull | 0x80ull;

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*device_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

// NVML, loaded and initialized once per process; nullopt (with why) where it cannot be.
const std::optional<NvmlApi>& nvml(std::string& why) {
  static std::string failure;
  static const std::optional<NvmlApi> api = []() -> std::optional<NvmlApi> {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      failure = fmt::format("NVML could not be loaded ({}); clocks are not sampled", dlerror());
      return std::nullopt;
    }
    NvmlApi a;
    a.init = reinterpret_cast<decltype(a.init)>(dlsym(library, "nvmlInit_v2"));
    a.device_by_pci_bus_id =
        reinterpret_cast<decltype(a.device_by_pci_bus_id)>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    a.clock_info = reinterpret_cast<decltype(a.clock_info)>(dlsym(library, "nvmlDeviceGetClockInfo"));
    // Renamed "clocks event reasons" in newer drivers; the old name stays exported.
    a.throttle_reasons =
        reinterpret_cast<decltype(a.throttle_reasons)>(dlsym(library, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!a.throttle_reasons)
      a.throttle_reasons =
          reinterpret_cast<decltype(a.throttle_reasons)>(dlsym(library, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!a.init || !a.device_by_pci_bus_id || !a.clock_info || !a.throttle_reasons) {
      failure = "NVML lacks the clock functions (a driver older than 530?); clocks are not sampled";
      return std::nullopt;
    }
    if (const NvmlReturn status = a.init(); status != kNvmlSuccess) {
      failure = fmt::format("nvmlInit failed (nvmlReturn {}); clocks are not sampled", status);
      return std::nullopt;
    }
    return a;
  }();
  why = failure;
  return api;
}

}  // namespace

bool throttling(unsigned long long reasons) { return (reasons & kThrottleMask) != 0; }

ClockSampler::ClockSampler(int cuda_device) {
  const auto& api = nvml(unavailable_);
  if (!api) return;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), cuda_device) != cudaSuccess ||
      api->device_by_pci_bus_id(bus_id, &device_) != kNvmlSuccess) {
    device_ = nullptr;
    unavailable_ = fmt::format("NVML does not know CUDA device {} ({}); clocks are not sampled", cuda_device, bus_id);
  }
}

std::optional<ClockReading> ClockSampler::read() const {
  if (!device_) return std::nullopt;
  std::string ignored;
  const NvmlApi& api = *nvml(ignored);
  ClockReading reading;
  unsigned long long reasons = 0;
  if (api.clock_info(device_, kNvmlClockSm, &reading.sm_mhz) != kNvmlSuccess ||
      api.throttle_reasons(device_, &reasons) != kNvmlSuccess)
    return std::nullopt;
  reading.throttled = throttling(reasons);
  return reading;
}

}  // namespace cl2
