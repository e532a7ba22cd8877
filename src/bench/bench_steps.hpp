#pragma once
// The steps of `bench`, each a function: what to measure (BenchPlan), the GPU state they share
// (BenchGpu, with the runtime library where it is benched), the measured peaks, one shape's
// measurements, and the optional Python parts (torch.matmul timings, plots). Problem setup,
// verification, the libraries' algorithm choice and the side-by-side GPU timing and the kernel
// traces are tune's worker's too (measure/); bench adds the runtime library, the per-call wall
// clock and server mode.
#include <memory>
#include <set>
#include <string>

#include "bench/bench_options.hpp"
#include "bench/bench_records.hpp"
#include "bench/runtime_provider.hpp"
#include "db/tuning_db.hpp"
#include "gpu/call_timing.hpp"
#include "measure/gpu_context.hpp"
#include "search/family_spec.hpp"
#include "tune/progress.hpp"

namespace cl2 {

struct BenchPlan {
  std::set<Provider> providers;     // resolved from --providers
  bool torch_explicit = false;      // asked for by name: its absence is an error
  bool offline = true, server = true;
  bool trace = false;               // trace each offline-timed call (--trace-kernels)
  std::string runtime_db;           // what provider runtime dispatches from; "" where it is not asked for
  bool runtime_explicit = false;    // named in --providers, or --runtime-db given: benched even where --db
                                    // has no winner for the shapes
};

// Validates --mode, --providers, --interval-ms, --trace-kernels and --runtime-db (which needs
// provider runtime); throws UserError naming a bad value.
BenchPlan make_bench_plan(const BenchOptions& options);

struct BenchGpu {
  BenchGpu(const BenchOptions& options, const DeviceInfo& device);
  const BenchOptions& options;
  GpuContext context;
  std::vector<FamilySpec> extra_families;
  std::unique_ptr<RuntimeProvider> runtime;  // where provider runtime is benched: one for the run
};

// Device-to-device copy and read-only streaming bandwidth, and cuBLAS's fp16 rate at 8192^3, measured now.
void measure_peaks(BenchGpu& gpu, BenchRun& run);

ShapeBench bench_shape(BenchGpu& gpu, const TuningDb& db, std::int64_t device_id, const Problem& problem,
                       const BenchPlan& plan);

void run_torch_if_asked(const BenchOptions& options, const BenchPlan& plan, BenchRun& run, Progress& progress);
void plot_if_possible(const BenchOptions& options, Progress& progress);

}  // namespace cl2
