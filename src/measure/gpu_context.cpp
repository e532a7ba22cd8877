#include "measure/gpu_context.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/device_query.hpp"

namespace cl2 {

namespace {

cudaStream_t non_blocking_stream() {
  cudaStream_t stream = nullptr;
  CL2_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

int current_device() {
  int device = 0;
  CL2_CUDA(cudaGetDevice(&device));
  return device;
}

}  // namespace

GpuContext::GpuContext(const DeviceInfo& d, const std::string& cache_dir)
    : device(d),
      limits(device_limits(d)),
      compiler(cache_dir),
      stream(non_blocking_stream()),
      clocks(current_device()),
      timer(stream, &clocks),
      utility(compiler, limits.nvrtc_arch()) {}

L2Flusher& GpuContext::l2_flusher() {
  if (!flusher_) flusher_ = std::make_unique<L2Flusher>(std::size_t(device.l2_bytes));
  return *flusher_;
}

GpuContext::~GpuContext() {
  if (stream) cudaStreamDestroy(stream);
}

}  // namespace cl2
