#pragma once
// Error checks for the CUDA runtime, the driver API, cuBLAS and cuBLASLt. A failed call throws
// GpuError naming the subsystem, the call, file and line; `sticky` marks errors after which the
// CUDA context is unusable (illegal address, launch failure...), which the worker answers by
// reporting the fault and exiting, so its parent can start a fresh one.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cublasLt.h>
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace cl2 {

struct GpuError : std::runtime_error {
  GpuError(const std::string& message, bool sticky_error)
      : std::runtime_error(message), sticky(sticky_error) {}
  bool sticky;
};

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_driver_error(CUresult status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);

bool is_sticky(cudaError_t status);
bool is_sticky(CUresult status);

}  // namespace cl2

#define CL2_CUDA(call)                                                             \
  do {                                                                             \
    const cudaError_t cl2_status_ = (call);                                        \
    if (cl2_status_ != cudaSuccess) ::cl2::throw_cuda_error(cl2_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define CL2_CU(call)                                                               \
  do {                                                                             \
    const CUresult cl2_status_ = (call);                                           \
    if (cl2_status_ != CUDA_SUCCESS) ::cl2::throw_driver_error(cl2_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define CL2_CUBLAS(call)                                                           \
  do {                                                                             \
    const cublasStatus_t cl2_status_ = (call);                                     \
    if (cl2_status_ != CUBLAS_STATUS_SUCCESS) ::cl2::throw_cublas_error(cl2_status_, #call, __FILE__, __LINE__); \
  } while (0)
