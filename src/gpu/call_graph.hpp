#pragma once
// A call launched `copies` times back to back, captured once into a CUDA graph and replayed as a
// whole: how a timed sample runs (gpu/timing), and how the traced pass replays one
// (measure/problem_measurement), so both see the same launches with the same gaps between them.
// The graph records its own events, before the first launch and after the last: a sample's time
// is theirs, which leaves out the few microseconds the GPU takes to start a graph (events
// recorded on the stream around the replay counted them, 3-16% of a sample of 2-5 us calls on
// the H200 against CUPTI's span of the same replay).
#include <cuda_runtime_api.h>

#include "gpu/cuda_event.hpp"

namespace cl2 {

struct TimedCall;

class CallGraph {
 public:
  // Captures launch_number(0..copies-1) of `call` on `stream` (which must not be capturing) and
  // instantiates the graph; CUDA errors throw GpuError, and a failed capture leaves no graph.
  CallGraph(const TimedCall& call, int copies, cudaStream_t stream);
  ~CallGraph();
  CallGraph(const CallGraph&) = delete;
  CallGraph& operator=(const CallGraph&) = delete;

  void launch(cudaStream_t stream) const;
  // GPU time of the last replay, first launch to last, in microseconds; call once it completed.
  double last_replay_us() const { return 1000.0 * elapsed_ms(start_, stop_); }

 private:
  Event start_, stop_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace cl2
