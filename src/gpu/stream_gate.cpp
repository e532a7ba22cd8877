#include "gpu/stream_gate.hpp"

#include <thread>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace cl2 {

namespace {

void CUDART_CB wait_until_open(void* flag) {
  auto* open = static_cast<std::atomic<bool>*>(flag);
  while (!open->load(std::memory_order_acquire)) std::this_thread::yield();
  delete open;
}

}  // namespace

StreamGate::StreamGate(cudaStream_t stream) : open_(new std::atomic<bool>(false)) {
  if (const cudaError_t error = cudaLaunchHostFunc(stream, wait_until_open, open_); error != cudaSuccess) {
    delete open_;
    open_ = nullptr;
    throw_cuda_error(error, "cudaLaunchHostFunc", __FILE__, __LINE__);
  }
}

void StreamGate::release() {
  if (!open_) return;
  // After this store the host function may free the flag at any moment: never touched again.
  std::exchange(open_, nullptr)->store(true, std::memory_order_release);
}

}  // namespace cl2
