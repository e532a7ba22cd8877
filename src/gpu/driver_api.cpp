#include "gpu/driver_api.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gpu/cuda_check.hpp"

namespace cl2 {

namespace {

template <typename Fn>
void resolve(Fn& target, const char* symbol) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // Version 12000 pins the ABI of each entry point to the CUDA 12.0 signature we declare.
  const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &address, 12000,
                                                              cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || !address)
    throw GpuError(fmt::format("CUDA driver: entry point {} not found (driver too old?)", symbol), false);
  target = reinterpret_cast<Fn>(address);
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = [] {
    DriverApi a;
    resolve(a.module_load_data, "cuModuleLoadData");
    resolve(a.module_unload, "cuModuleUnload");
    resolve(a.module_get_function, "cuModuleGetFunction");
    resolve(a.func_set_attribute, "cuFuncSetAttribute");
    resolve(a.func_get_attribute, "cuFuncGetAttribute");
    resolve(a.launch_kernel_ex, "cuLaunchKernelEx");
    resolve(a.tensor_map_encode_tiled, "cuTensorMapEncodeTiled");
    resolve(a.get_error_string, "cuGetErrorString");
    resolve(a.ctx_get_current, "cuCtxGetCurrent");
    return a;
  }();
  return api;
}

std::string driver_error_text(CUresult status) {
  const char* text = nullptr;
  try {
    if (driver_api().get_error_string(status, &text) == CUDA_SUCCESS && text)
      return fmt::format("{} (CUresult {})", text, int(status));
  } catch (const GpuError&) {
  }
  return fmt::format("CUresult {}", int(status));
}

}  // namespace cl2
