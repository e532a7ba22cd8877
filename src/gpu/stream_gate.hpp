#pragma once
// Holds a stream until released: work enqueued behind the gate waits, then runs back to back.
// Timing small kernels launch by launch needs it: enqueueing a launch and an event costs the host
// a few µs, as long as such a kernel runs, so without the gate the GPU would wait for the host
// between launches and the events would time the host's pace, not the kernels.
#include <cuda_runtime_api.h>

#include <atomic>

namespace cl2 {

class StreamGate {
 public:
  // Enqueues the gate (a host function that waits for release()) on `stream`; GpuError where
  // that fails.
  explicit StreamGate(cudaStream_t stream);
  // Releases the gate where release() was not called, so that the stream never stays held.
  ~StreamGate() { release(); }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  void release();

 private:
  // Owned by the host function once enqueued: it frees the flag after seeing it set, so the flag
  // outlives this object however late the stream reaches the gate.
  std::atomic<bool>* open_ = nullptr;
};

}  // namespace cl2
