#include "search/device_limits.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace cl2 {

std::string DeviceLimits::nvrtc_arch() const {
  return cc == 90 ? "sm_90a" : fmt::format("sm_{}", cc);
}

void DeviceLimits::add_to(ExprVariables& vars) const {
  vars["CC"] = std::int64_t(cc);
  vars["NUM_SMS"] = std::int64_t(num_sms);
  vars["SMEM_OPTIN"] = smem_optin;
  vars["SMEM_PER_SM"] = smem_per_sm;
  vars["REGS_PER_SM"] = regs_per_sm;
  vars["L2_BYTES"] = l2_bytes;
  vars["PEAK_TFLOPS"] = peak_tflops;
  vars["MEM_GBPS"] = mem_gbps;
}

DeviceLimits limits_for_arch(const std::string& arch) {
  // Datasheet figures of the reference part of each architecture (A100, A10, L4, H100/H200 SXM),
  // with the tensor rate at about 80% of the datasheet, what dense GEMMs reach.
  DeviceLimits d;
  if (arch == "sm_80") {
    d = {80, 108, 163 * 1024, 164 * 1024, 65536, 40 << 20, 80ll << 30, 250.0, 1800.0};
  } else if (arch == "sm_86") {
    d = {86, 84, 99 * 1024, 100 * 1024, 65536, 6 << 20, 24ll << 30, 60.0, 700.0};
  } else if (arch == "sm_89") {
    d = {89, 58, 99 * 1024, 100 * 1024, 65536, 48 << 20, 24ll << 30, 100.0, 250.0};
  } else if (arch == "sm_90a" || arch == "sm_90") {
    // The H200's 60 MB of L2 (the H100 has 50 MB): the project's measurement GPU, so that plans
    // made here without a GPU (--compile-only, carried caches) are the ones its device makes.
    d = {90, 132, 227 * 1024, 228 * 1024, 65536, 60 << 20, 141ll << 30, 790.0, 4300.0};
  } else {
    throw UserError(fmt::format("--arch {}: unknown architecture; use sm_80, sm_86, sm_89 or sm_90a", arch));
  }
  return d;
}

}  // namespace cl2
