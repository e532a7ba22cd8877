#pragma once
// Opening the runtime: the tables and cubins read from a tuning database, a bundle folder or an
// embedded header (no GPU needed, so bad input is reported first and tested anywhere), then the
// table of the GPU that is current, checked against it, with the GPU backend.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../../include/cl2/cl2.h"
#include "runtime/cubin_source.hpp"
#include "runtime/first_call_timing.hpp"
#include "runtime/runtime.hpp"

namespace cl2 {

struct RuntimeInput {
  std::string what;                   // the path, for messages
  std::vector<DispatchTable> tables;  // one per GPU: a database may hold several
  std::unique_ptr<CubinSource> cubins;
  // Where kernels can be compiled (a database: the kernel cache and NVRTC), the planner of kernels
  // for untuned shapes; null for a bundle, which holds its winners' cubins only.
  std::unique_ptr<ShapePlanner> planner = nullptr;
};

// A folder is read as a bundle, a file as a tuning database (read only, never written), whose
// winners are compiled on first use through the kernel cache `cache_dir`. Throws RuntimeError
// (CL2_ERROR_BAD_INPUT_FILE) naming the path and the fix, which names `path_option`: where the
// caller took the path from (cl2_open, bench's --runtime-db).
RuntimeInput read_runtime_input(const std::string& path, const std::string& cache_dir, std::string_view path_option);
RuntimeInput read_embedded_input(const cl2_embedded_bundle& bundle);

struct TableChoice {
  DispatchTable table;
  bool library_only = false;  // tuned on another GPU, opened with CL2_OPEN_LIBRARY_FALLBACK
  std::string warning;        // what to tell the user about it
};

// The table tuned on `device` (same GPU name and compute capability). Where there is none: with
// `library_fallback` an empty table and a warning, else RuntimeError (CL2_ERROR_DEVICE_MISMATCH)
// naming the GPUs the input was tuned on.
TableChoice table_for_device(std::vector<DispatchTable> tables, const DeviceInfo& device, bool library_fallback,
                             const std::string& what);

// What the caller asked of the runtime: cl2_open_with_options' flags, and CL2_FIRST_CALL_TIMING
// and CL2_PLANNED_CANDIDATES where they leave first-call timing on.
struct OpenOptions {
  bool library_fallback = false;                      // CL2_OPEN_LIBRARY_FALLBACK
  int timed_candidates = kDefaultTimedCandidates;     // 0 with CL2_OPEN_NO_FIRST_CALL_TIMING
  int planned_candidates = kDefaultPlannedCandidates;  // 0 with CL2_OPEN_NO_FIRST_CALL_TIMING
  bool weights_read_only = false;                      // CL2_OPEN_WEIGHTS_READ_ONLY
};

// RuntimeError (CL2_ERROR_INVALID_ARGUMENT) for a bad CL2_FIRST_CALL_TIMING or
// CL2_PLANNED_CANDIDATES: read at open, so that a typo is reported before any GEMM, not ignored.
OpenOptions open_options(unsigned flags);

// The runtime for the current CUDA device (RuntimeError CL2_ERROR_NO_DEVICE where there is none).
std::unique_ptr<Runtime> open_runtime(RuntimeInput input, const OpenOptions& options);

}  // namespace cl2
