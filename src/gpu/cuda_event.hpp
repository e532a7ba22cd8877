#pragma once
// A CUDA event that destroys itself, and the GPU time between two recorded ones: for the timers
// that bracket launches with events (gpu/timing, the runtime's first-call timing).
#include <cuda_runtime_api.h>

#include "gpu/cuda_check.hpp"

namespace cl2 {

class Event {
 public:
  Event() { CL2_CUDA(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
  Event& operator=(Event&&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds from `start` to `stop`, both recorded and complete.
inline float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  CL2_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace cl2
