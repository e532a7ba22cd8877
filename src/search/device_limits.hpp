#pragma once
// What the search space needs to know of the GPU: the compute capability selects the families and
// the NVRTC architecture, the rest bounds tiles and feeds the cost models. Read from the device in
// the worker, or taken from a table of known parts when compiling without a GPU (--compile-only).
#include <cstdint>
#include <string>

#include "core/expr.hpp"

namespace cl2 {

struct DeviceLimits {
  int cc = 0;               // 90 for sm_90
  int num_sms = 0;
  std::int64_t smem_optin = 0;   // bytes of shared memory one block may opt in to
  std::int64_t smem_per_sm = 0;
  std::int64_t regs_per_sm = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  double peak_tflops = 0;   // dense fp16 tensor rate with fp32 accumulation, measured or datasheet
  double mem_gbps = 0;      // achievable DRAM bandwidth

  // "sm_90a" for cc 90 (wgmma and setmaxnreg need the arch-specific target), "sm_80" etc. else.
  std::string nvrtc_arch() const;
  void add_to(ExprVariables& vars) const;
};

// Limits of a known architecture ("sm_80", "sm_86", "sm_89", "sm_90a"); throws UserError otherwise.
DeviceLimits limits_for_arch(const std::string& arch);

}  // namespace cl2
