#pragma once
// Which kernels a call launches: CUPTI's activity records of concurrent kernels, collected around
// a sequence of back-to-back launches of the call (as many as one timed sample makes). Event timing only sees the stream it is given, so this is how a call
// that puts work on another stream, or runs more kernels than its time accounts for, is caught
// (core/call_trace.hpp judges it). CUPTI is optional (gpu/cupti_api.hpp): where it is missing or
// refuses, every trace comes back absent with the reason, and measuring goes on.
#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "core/call_trace.hpp"
#include "gpu/cupti_api.hpp"

namespace cl2 {

class KernelTracer {
 public:
  // Traces through the process's own CUPTI, loaded at the first trace: a process that never
  // traces never loads it (with it loaded, our small kernels ran up to 0.7 us slower on the H200).
  KernelTracer() = default;
  // Traces through `cupti` (which must outlive the tracer): in the tests, one loaded from a path.
  explicit KernelTracer(const CuptiLibrary& cupti) : cupti_(&cupti) {}

  // Runs `launches` on `stream` (it launches `calls` calls back to back) with kernel records on,
  // between two events on `stream`, waits for the whole device (work the calls put on other
  // streams included) and returns the kernels they ran, the pass's times as its sample_pass.
  // CUDA errors of the calls throw GpuError as usual; CUPTI's own failures make an absent trace
  // instead (without a launch, or any CUDA call where CUPTI is missing or refuses to start), and
  // once CUPTI has refused, every later trace of this tracer is absent for the same reason.
  // `hold_until_enqueued`: the stream waits (gpu/stream_gate) until `launches` has enqueued
  // everything, so the events time the GPU's work, not the host's pace: with CUPTI on, a graph
  // launch kept the host 0.4-0.8 ms (measured on an H100), and the events of a pass not held timed
  // that wait. Only for a few launches (one graph, one call): hundreds could fill the stream's
  // queue while it is held, and the host would wait on it forever.
  // `lead_in` (with hold_until_enqueued): `launches` runs that many times more before the first
  // event, and the trace is of the last run alone, which so starts right behind the one before,
  // as a timed sample starts behind the sample before it in its round (gpu/timing): started on an
  // idle stream, a graph's events ran 5-7 us a replay above CUPTI's span of it on the H200.
  CallTrace trace(cudaStream_t stream, const std::function<void(cudaStream_t)>& launches, int calls,
                  bool hold_until_enqueued = false, int lead_in = 0);

 private:
  const CuptiLibrary* cupti_ = nullptr;  // null: the process's, once the first trace needs it
  std::string refused_;  // why CUPTI refused to trace, once it has
  bool callbacks_registered_ = false;
};

}  // namespace cl2
