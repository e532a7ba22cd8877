#pragma once
// What `cuda-l2-tune bench` measures, as the report reads it. For each shape and provider, one
// timing per mode: "offline" (calls back to back) or "server" (each call alone after an idle gap
// of interval_ms). Two figures each: GPU time (CUDA events; offline: around graph-captured
// launches) and per-call time as the caller sees it (host wall clock around the call and a
// synchronize, launch overhead included, as CUDA-L2 measures). Times in microseconds; NaN where a
// figure was not measured. With --trace-kernels, also the kernels each offline-timed call ran as
// CUPTI traced them, to hold against its offline GPU time. With provider "runtime", the route the
// runtime library took for each shape.
#include <optional>
#include <string>
#include <vector>

#include "core/call_trace.hpp"
#include "core/device_info.hpp"
#include "core/problem.hpp"
#include "core/provider.hpp"

namespace cl2 {

// The providers bench measures, in report order (cublas_max is derived from two of them).
inline const std::vector<Provider>& bench_providers() {
  static const std::vector<Provider> providers = {Provider::Ours,     Provider::Runtime,
                                                  Provider::CublasNn, Provider::CublasTn,
                                                  Provider::CublasltHeuristic, Provider::CublasltAutotune,
                                                  Provider::Torch};
  return providers;
}

struct ProviderTiming {
  Provider provider = Provider::Ours;
  std::string mode;      // "offline" | "server"
  int interval_ms = 0;   // server gap; 0 for offline
  double gpu_us = 0, gpu_spread_pct = 0;
  int gpu_samples = 0;
  double wall_us = 0, wall_spread_pct = 0;
  int wall_samples = 0;
};

// One call's kernels, traced as one sample of its offline GPU timing launched them.
struct ProviderTrace {
  Provider provider = Provider::Ours;
  CallTrace trace;
};

// Where the runtime library sent a shape's calls (provider "runtime"), as its first call answered.
struct RuntimeRoute {
  std::string route;   // "ours_exact", "ours_nearest", "cublaslt_recorded" or "cublaslt_heuristic"
  std::string detail;  // the runtime's own line: "ours nearest (tuned at 3000x4096x4096): sm90 BM=128 ..."
  // "exact", "nearest-model", "nearest-timed" or "library" (runtime/dispatch's chosen_by); empty in
  // runs written before the runtime timed untuned shapes at their first call.
  std::string chosen_by = {};
  bool operator==(const RuntimeRoute&) const = default;
};

struct ShapeBench {
  Problem problem;
  bool has_winner = false;         // false: "ours" has no timings, reported as missing
  std::string winner_family;
  std::string winner_config;       // KernelConfig JSON
  std::vector<ProviderTiming> timings;
  std::vector<ProviderTrace> traces;  // empty unless traced
  std::optional<RuntimeRoute> runtime_route;  // where the runtime was benched
};

struct BenchRun {
  DeviceInfo device;
  std::string measured_at;         // UTC ISO 8601
  double peak_tflops = 0;          // measured: cuBLAS fp16 GEMM 8192^3, fp32 accumulation
  double peak_gbps = 0;            // measured: device-to-device copy, bytes read + written
  double read_gbps = 0;            // measured: a read-only streaming kernel over 1 GiB
  L2Policy l2 = L2Policy::Warm;    // the policy every shape was timed under
  std::vector<int> intervals_ms;
  std::string runtime_db;          // what the runtime dispatched from (--runtime-db); "" where not benched
  std::vector<ShapeBench> shapes;
};

}  // namespace cl2
