#pragma once
// The worker's helper kernels (templates/cl2_utility_kernels.cuh), compiled once with NVRTC for
// the device's architecture through the kernel cache.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "gpu/device_buffer.hpp"
#include "gpu/loaded_module.hpp"

namespace cl2 {

class KernelCompiler;

class UtilityKernels {
 public:
  UtilityKernels(const KernelCompiler& compiler, const std::string& arch);

  void fill_uniform(void* out_halves, long long count, unsigned seed, float scale, cudaStream_t s);
  // max |C - ref| (C fp16 rows x cols with leading dimension ldc; ref fp32, dense); +Inf for NaN.
  double max_abs_diff(const void* c, const float* ref, long long rows, long long cols,
                      long long ldc, cudaStream_t s);
  double max_abs(const float* values, long long count, cudaStream_t s);
  // How many of the `count` fp16 values at a and b differ in any bit.
  long long count_differing_halves(const void* a, const void* b, long long count, cudaStream_t s);
  // Reads `bytes` (a multiple of 16) at `data` once and writes nothing that matters: the read
  // bandwidth reference (cl2_read_stream).
  void read_stream(const void* data, long long bytes, cudaStream_t s);

 private:
  double read_max(cudaStream_t s);
  std::unique_ptr<LoadedModule> module_;
  CUfunction fill_ = nullptr, diff_ = nullptr, max_ = nullptr, differing_ = nullptr, read_ = nullptr;
  DeviceBuffer result_;
};

}  // namespace cl2
