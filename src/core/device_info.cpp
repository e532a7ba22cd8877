#include "core/device_info.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace cl2 {

std::string DeviceInfo::fingerprint() const {
  return fmt::format("{}|sm{}{}|{}sms|drv{}|rt{}|cublas{}|nvrtc{}", name, cc_major, cc_minor,
                     num_sms, driver_version, cuda_runtime_version, cublas_version, nvrtc_version);
}

void to_json(nlohmann::json& j, const DeviceInfo& d) {
  j = {{"name", d.name},
       {"cc_major", d.cc_major},
       {"cc_minor", d.cc_minor},
       {"num_sms", d.num_sms},
       {"sm_clock_mhz", d.sm_clock_mhz},
       {"mem_clock_mhz", d.mem_clock_mhz},
       {"l2_bytes", d.l2_bytes},
       {"smem_optin_bytes", d.smem_optin_bytes},
       {"smem_per_sm_bytes", d.smem_per_sm_bytes},
       {"regs_per_sm", d.regs_per_sm},
       {"global_mem_bytes", d.global_mem_bytes},
       {"free_mem_bytes", d.free_mem_bytes},
       {"driver_version", d.driver_version},
       {"cuda_runtime_version", d.cuda_runtime_version},
       {"cublas_version", d.cublas_version},
       {"nvrtc_version", d.nvrtc_version}};
}

void from_json(const nlohmann::json& j, DeviceInfo& d) {
  d.name = j.at("name").get<std::string>();
  d.cc_major = j.at("cc_major").get<int>();
  d.cc_minor = j.at("cc_minor").get<int>();
  d.num_sms = j.at("num_sms").get<int>();
  d.sm_clock_mhz = j.value("sm_clock_mhz", 0);
  d.mem_clock_mhz = j.value("mem_clock_mhz", 0);
  d.l2_bytes = j.value("l2_bytes", std::int64_t{0});
  d.smem_optin_bytes = j.value("smem_optin_bytes", std::int64_t{0});
  d.smem_per_sm_bytes = j.value("smem_per_sm_bytes", std::int64_t{0});
  d.regs_per_sm = j.value("regs_per_sm", std::int64_t{0});
  d.global_mem_bytes = j.value("global_mem_bytes", std::int64_t{0});
  d.free_mem_bytes = j.value("free_mem_bytes", std::int64_t{0});
  d.driver_version = j.value("driver_version", "");
  d.cuda_runtime_version = j.value("cuda_runtime_version", "");
  d.cublas_version = j.value("cublas_version", "");
  d.nvrtc_version = j.value("nvrtc_version", "");
}

}  // namespace cl2
