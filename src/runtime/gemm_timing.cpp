#include "runtime/gemm_timing.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/nvml_clocks.hpp"
#include "gpu/timing.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

TimingStream::~TimingStream() {
  if (stream_) cudaStreamDestroy(stream_);
}

TimingStats TimingStream::time(Runtime& runtime, const GemmCall& call) {
  const auto caller = static_cast<cudaStream_t>(call.stream);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CL2_CUDA(cudaStreamIsCapturing(caller, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT,
                       "cl2_time_gemm_packed: the stream is being captured into a CUDA graph; time outside the capture");
  const std::lock_guard<std::mutex> one_at_a_time(mutex_);
  if (!stream_) CL2_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  CL2_CUDA(cudaStreamSynchronize(caller));
  GemmCall timed_call = call;
  timed_call.stream = stream_;
  runtime.gemm(timed_call);  // decided and loaded before the graph is captured
  int device = 0;
  CL2_CUDA(cudaGetDevice(&device));
  const ClockSampler clocks(device);
  IntervalTimer timer(stream_, &clocks);
  const TimedCall launch{"cl2_time_gemm", [&](cudaStream_t stream) {
                           GemmCall on_stream = timed_call;
                           on_stream.stream = stream;
                           runtime.gemm(on_stream);
                         }};
  const TimingStats stats = timer.interleaved({launch}, final_stop_rule()).front();
  CL2_CUDA(cudaStreamSynchronize(stream_));
  return stats;
}

}  // namespace cl2
