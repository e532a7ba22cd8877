#pragma once
// A dispatched GEMM timed in the calling process as `cuda-l2-tune bench` times its offline GPU
// figure (cl2_time_gemm_packed): the call captured into a CUDA graph as many times as fill ~300 us,
// replays between events in rounds until bench's final stop rule settles the median, rounds the
// GPU ran throttled discarded (NVML). So a program, or cl2tune from Python, can set its own
// per-call time against bench's method on the same kernel, clocks and power state, rather than
// against a figure another process measured minutes earlier (issue 12, acceptance 2: between
// processes the same kernel's figure moved by up to 10% at the H100's power cap).
#include <cuda_runtime_api.h>

#include <mutex>

#include "gpu/stop_rule.hpp"
#include "runtime/runtime.hpp"

namespace cl2 {

// Where a handle's timings run, one at a time: a non-blocking stream of their own (the caller's
// may be the legacy default stream, which cannot be captured into a graph), made at the first
// timing and kept, so that the runtime's per-stream state is sized once.
class TimingStream {
 public:
  TimingStream() = default;
  ~TimingStream();
  TimingStream(const TimingStream&) = delete;
  TimingStream& operator=(const TimingStream&) = delete;

  // Waits for `call.stream` (the operands' producer), makes the call once outside any graph (an
  // untuned shape's first-call decision, module loads), then times it on the timing stream and
  // waits for that; C is overwritten by every replay. Throws RuntimeError
  // (CL2_ERROR_INVALID_ARGUMENT) while `call.stream` is being captured, GpuError for CUDA failures.
  TimingStats time(Runtime& runtime, const GemmCall& call);

 private:
  std::mutex mutex_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace cl2
