#pragma once
// Reads what ptxas reports about a compiled kernel (NVRTC's log with --ptxas-options=--verbose):
// registers, spills, stack frame, static shared memory, and the warnings that disqualify a
// variant before it is timed (spills, serialized wgmma, an ignored setmaxnreg).
#include <string>
#include <vector>

namespace cl2 {

struct PtxasReport {
  int registers = -1;
  int stack_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int smem_static_bytes = 0;
  std::vector<std::string> warnings;  // ptxas warnings, one line each

  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
  // Why the variant must not be timed, or "" when it may.
  std::string rejection() const;
};

PtxasReport parse_ptxas_report(const std::string& log);

}  // namespace cl2
