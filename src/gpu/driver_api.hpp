#pragma once
// The driver API functions we use, looked up at run time through the CUDA runtime
// (cudaGetDriverEntryPointByVersion) instead of linking libcuda: the binary then starts on
// machines without a driver, where only --help, --compile-only, export and show are needed.
#include <cuda.h>

#include <string>

namespace cl2 {

struct DriverApi {
  CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
  CUresult (*module_unload)(CUmodule) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*func_set_attribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*func_get_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*launch_kernel_ex)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  CUresult (*tensor_map_encode_tiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                      const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                      const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                      CUtensorMapL2promotion, CUtensorMapFloatOOBfill) = nullptr;
  CUresult (*get_error_string)(CUresult, const char**) = nullptr;
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;  // the context CUPTI's range profiler attaches to
};

// Resolved once, after the runtime has initialised a device; throws GpuError if a symbol is missing.
const DriverApi& driver_api();

std::string driver_error_text(CUresult status);

}  // namespace cl2
