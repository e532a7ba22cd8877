#pragma once
// The SM clock and whether the GPU is throttled, read through NVML loaded at run time (dlopen of
// libnvidia-ml.so.1, the driver's; its few prototypes are declared in the .cpp, so no nvml.h is
// needed to build). Optional: where NVML is missing or does not know the device, every reading is
// nullopt and timing goes on as before, unfiltered.
#include <optional>
#include <string>

namespace cl2 {

struct ClockReading {
  unsigned sm_mhz = 0;
  // Slowed by HW slowdown, SW/HW thermal limits or the power brake. Not the SW power cap, where
  // GEMMs under load settle (nvml_clocks.cpp), nor idle, application-clock or sync-boost reasons.
  bool throttled = false;
};

// What NVML's throttle-reason mask says: true where one of the reasons above is set.
bool throttling(unsigned long long reasons);

class ClockSampler {
 public:
  // For CUDA device `cuda_device` (found in NVML by its PCI bus id); NVML stays loaded.
  explicit ClockSampler(int cuda_device);
  std::optional<ClockReading> read() const;
  const std::string& unavailable() const { return unavailable_; }  // why there are no readings

 private:
  void* device_ = nullptr;  // nvmlDevice_t
  std::string unavailable_;
};

}  // namespace cl2
