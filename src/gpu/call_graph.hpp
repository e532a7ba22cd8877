#pragma once
// A call launched `copies` times back to back, captured once into a CUDA graph and replayed as a
// whole: how a timed sample runs (gpu/timing), and how the traced pass replays one
// (measure/problem_measurement), so both see the same launches with the same gaps between them.
#include <cuda_runtime_api.h>

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
  // Sets the graph up on the device without running it, which its first launch would do otherwise.
  void upload(cudaStream_t stream) const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace cl2
