#pragma once
// The GPU and software a measurement was taken on; stored with every result. The fingerprint
// identifies "the same device" across runs: name, compute capability, SM count and versions of
// driver, CUDA runtime, cuBLAS and NVRTC.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace cl2 {

struct DeviceInfo {
  std::string name;               // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int num_sms = 0;
  int sm_clock_mhz = 0;           // rated maximum
  int mem_clock_mhz = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t smem_optin_bytes = 0;
  std::int64_t smem_per_sm_bytes = 0;
  std::int64_t regs_per_sm = 0;
  std::int64_t global_mem_bytes = 0;
  std::int64_t free_mem_bytes = 0;  // at worker start; not part of the identity
  std::string driver_version;       // "13.0" (CUDA version the driver supports)
  std::string cuda_runtime_version;
  std::string cublas_version;
  std::string nvrtc_version;

  int cc() const { return cc_major * 10 + cc_minor; }
  std::string fingerprint() const;
  bool operator==(const DeviceInfo&) const = default;
};

void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);

}  // namespace cl2
