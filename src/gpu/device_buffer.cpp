#include "gpu/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include "gpu/cuda_check.hpp"

namespace cl2 {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) CL2_CUDA(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);  // errors ignored: a destructor must not throw, the context may be gone
}

}  // namespace cl2
