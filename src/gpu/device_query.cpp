#include "gpu/device_query.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "compiler/kernel_compiler.hpp"
#include "gpu/cuda_check.hpp"

namespace cl2 {

namespace {
std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}
}  // namespace

std::string gpu_unavailable_reason(int index) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice ||
      status == cudaErrorInitializationError || status == cudaErrorSystemDriverMismatch ||
      status == cudaErrorCompatNotSupportedOnDevice)
    return fmt::format("no usable NVIDIA GPU or driver on this machine ({}); run on a GPU machine, "
                       "or use --compile-only to only compile the candidates",
                       cudaGetErrorString(status));
  if (status != cudaSuccess)
    return fmt::format("cannot query GPUs: {}; check the NVIDIA driver", cudaGetErrorString(status));
  if (count == 0)
    return "no NVIDIA GPU found; run on a GPU machine, or use --compile-only";
  if (index < 0 || index >= count)
    return fmt::format("--device {}: no such GPU (this machine has {}); pick 0..{}", index, count,
                       count - 1);
  return "";
}

DeviceInfo query_device(int index) {
  CL2_CUDA(cudaSetDevice(index));
  CL2_CUDA(cudaFree(nullptr));  // create the primary context now, not inside a timed region
  cudaDeviceProp prop{};
  CL2_CUDA(cudaGetDeviceProperties(&prop, index));
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.num_sms = prop.multiProcessorCount;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index) == cudaSuccess) d.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index) == cudaSuccess)
    d.mem_clock_mhz = khz / 1000;
  d.l2_bytes = prop.l2CacheSize;
  d.smem_optin_bytes = std::int64_t(prop.sharedMemPerBlockOptin);
  d.smem_per_sm_bytes = std::int64_t(prop.sharedMemPerMultiprocessor);
  d.regs_per_sm = prop.regsPerMultiprocessor;
  d.global_mem_bytes = std::int64_t(prop.totalGlobalMem);
  size_t free_bytes = 0, total_bytes = 0;
  CL2_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  d.free_mem_bytes = std::int64_t(free_bytes);
  int version = 0;
  CL2_CUDA(cudaDriverGetVersion(&version));
  d.driver_version = cuda_version_text(version);
  CL2_CUDA(cudaRuntimeGetVersion(&version));
  d.cuda_runtime_version = cuda_version_text(version);
  const size_t lt = cublasLtGetVersion();  // e.g. 130001 for 13.0.1
  d.cublas_version = fmt::format("{}.{}.{}", lt / 10000, (lt / 100) % 100, lt % 100);
  d.nvrtc_version = nvrtc_version_text();
  return d;
}

DeviceLimits device_limits(const DeviceInfo& info) {
  DeviceLimits limits;
  try {
    limits = limits_for_arch(info.cc() == 90 ? "sm_90a" : fmt::format("sm_{}", info.cc()));
  } catch (const std::exception&) {
    limits.cc = info.cc();
  }
  limits.num_sms = info.num_sms;
  limits.smem_optin = info.smem_optin_bytes;
  limits.smem_per_sm = info.smem_per_sm_bytes;
  limits.regs_per_sm = info.regs_per_sm;
  limits.l2_bytes = info.l2_bytes;
  limits.global_mem_bytes = info.global_mem_bytes;
  return limits;
}

}  // namespace cl2
