#pragma once
// The worker's helper kernels (templates/cl2_utility_kernels.cuh), compiled once with NVRTC for
// the device's architecture through the kernel cache.
#include <cuda_runtime_api.h>

#include <cstdint>
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
  // A 64-bit hash of the fp16 output C (rows x cols, leading dimension ldc) that changes with any
  // bit of any value (cl2_output_hash): two launches' outputs compared without keeping either.
  std::uint64_t output_hash(const void* c, long long rows, long long cols, long long ldc, cudaStream_t s);
  // Reads `bytes` (a multiple of 16) at `data` once and writes nothing that matters: the read
  // bandwidth reference (cl2_read_stream).
  void read_stream(const void* data, long long bytes, cudaStream_t s);

 private:
  double read_max(cudaStream_t s);
  std::unique_ptr<LoadedModule> module_;
  CUfunction fill_ = nullptr, diff_ = nullptr, max_ = nullptr, hash_ = nullptr, read_ = nullptr;
  DeviceBuffer result_;
};

}  // namespace cl2
