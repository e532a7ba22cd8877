#pragma once
// What measuring on one GPU needs once, for tune's worker and for bench alike: the device and its
// search limits, the kernel compiler (and cache), a non-blocking stream, the clock sampler and the
// interval timer (which discards throttled rounds with it), the
// utility kernels (fills, references' maxima, output checks), the cuBLAS/cuBLASLt handles, the
// kernel tracer, the counter profiler, and the L2 flusher of the flush policy (made when first asked).
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "compiler/kernel_compiler.hpp"
#include "core/device_info.hpp"
#include "gpu/call_timing.hpp"
#include "gpu/counter_profiler.hpp"
#include "gpu/cublas_providers.hpp"
#include "gpu/kernel_trace.hpp"
#include "gpu/nvml_clocks.hpp"
#include "gpu/timing.hpp"
#include "gpu/utility_kernels.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

struct GpuContext {
  // `device` must be the current device (query_device makes it so).
  GpuContext(const DeviceInfo& device, const std::string& cache_dir);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const DeviceInfo device;
  const DeviceLimits limits;
  KernelCompiler compiler;
  cudaStream_t stream = nullptr;
  ClockSampler clocks;  // NVML's SM clock and throttling, where NVML is there
  // One timer for every measurement of the process, so its shuffles continue one random sequence.
  IntervalTimer timer;
  UtilityKernels utility;
  CublasProviders cublas;
  KernelTracer tracer;
  CounterProfiler counters;

  L2Flusher& l2_flusher();

 private:
  std::unique_ptr<L2Flusher> flusher_;
};

}  // namespace cl2
