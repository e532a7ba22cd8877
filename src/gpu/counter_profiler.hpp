#pragma once
// Hardware counters of one call through CUPTI's Range Profiler and Profiler Host API: one user range
// around one launch of the call, collected in one pass, so the counters describe that launch with
// every kernel the call ran (a split-K reduction included), as ncu would in one pass. The metrics
// are kCounterMetrics (core/call_counters.hpp). CUPTI is optional, as for kernel tracing
// (gpu/kernel_trace.hpp): where it is missing, lacks the profiler, or refuses
// (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), the counters come back absent with the reason and its fix.
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include "core/call_counters.hpp"
#include "gpu/cupti_api.hpp"

namespace cl2 {

class CounterProfiler {
 public:
  // Through the process's own CUPTI, loaded at the first measurement (a process that never
  // profiles never loads it).
  CounterProfiler();
  // Through `cupti` (which must outlive the profiler): in the tests, one loaded from a path.
  explicit CounterProfiler(const CuptiLibrary& cupti);
  ~CounterProfiler();
  CounterProfiler(const CounterProfiler&) = delete;
  CounterProfiler& operator=(const CounterProfiler&) = delete;

  // Launches `launch` once on `stream` inside a profiled range and returns its counters. CUDA
  // errors of the call throw GpuError as usual; CUPTI's own failures give absent counters instead
  // (without a launch where CUPTI is missing or refuses to start), and once CUPTI has refused,
  // every later measurement of this profiler is absent for the same reason.
  CallCounters measure(cudaStream_t stream, const std::function<void(cudaStream_t)>& launch);

 private:
  struct MetricConfig;  // the metric set chosen for the chip, built at the first measurement
  std::unique_ptr<MetricConfig> choose_metrics(CUcontext context) const;
  CallCounters collect(CUcontext context, cudaStream_t stream, const std::function<void(cudaStream_t)>& launch);
  const CuptiLibrary* cupti_ = nullptr;  // null: the process's, once the first measurement needs it
  std::string refused_;                  // why CUPTI cannot profile, once it has said so
  std::unique_ptr<MetricConfig> config_;
};

// "" where `cupti` starts its profiler (cuptiProfilerInitialize, which needs no GPU), else the
// one-line reason with its fix. The fake worker asks it whether to make counters up.
std::string profiler_unavailable(const CuptiLibrary& cupti);

}  // namespace cl2
