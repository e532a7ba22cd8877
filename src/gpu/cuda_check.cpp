#include "gpu/cuda_check.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gpu/driver_api.hpp"

namespace cl2 {

namespace {
std::string where(const char* file, int line) {
  return fmt::format("{}:{}", std::filesystem::path(file).filename().string(), line);
}
}  // namespace

bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

bool is_sticky(CUresult status) {
  switch (status) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_UNKNOWN:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw GpuError(fmt::format("CUDA runtime: {} failed: {} ({}) at {}", call,
                             cudaGetErrorString(status), cudaGetErrorName(status), where(file, line)),
                 is_sticky(status));
}

void throw_driver_error(CUresult status, const char* call, const char* file, int line) {
  throw GpuError(fmt::format("CUDA driver: {} failed: {} at {}", call, driver_error_text(status),
                             where(file, line)),
                 is_sticky(status));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  // cuBLAS reports a fault of the context as an execution failure; the context may be gone.
  throw GpuError(fmt::format("cuBLAS: {} failed: {} at {}", call, cublasGetStatusString(status),
                             where(file, line)),
                 status == CUBLAS_STATUS_EXECUTION_FAILED);
}

}  // namespace cl2
