#pragma once
// The files `cuda-l2-tune bench` leaves behind, and the way back from them:
//   bench.csv     every timing: one row per shape, provider (cublas_max derived) and mode
//   speedups.csv  CUDA-L2's per-shape table: our speedup over each baseline, per mode and figure
//   summary.md    the device, then CUDA-L2's geomean table per figure, by size class, best and
//                 worst shapes, throughput against the measured peaks, the shapes not tuned
//   run.json      the whole BenchRun, so the report can be regenerated without the GPU
//   trace.md      with --trace-kernels: each call's CUPTI kernel time against its event time
//   trace.json    the same, for programs (bench/bench_traces.hpp)
// Speedup = baseline time / our time (above 1: ours is faster), for one shape, mode and figure.
#include <string>

#include "bench/bench_records.hpp"

namespace cl2 {

// Writes the four files (six with traces) into `out_dir` (created if missing); each goes to a temporary name and
// is renamed, so a reader never sees half a file. UserError for an empty run or an unwritable
// folder.
void write_bench_outputs(const BenchRun& run, const std::string& out_dir);

// The inverse of run.json. UserError naming the file when it is missing or not a bench run.
BenchRun read_bench_run(const std::string& run_json_path);

// Adds provider "torch" timings from the CSV of scripts/torch_bench.py (columns M,N,K,layout,
// accum,mode,interval_ms,gpu_us,gpu_spread_pct,gpu_samples,wall_us,wall_spread_pct,wall_samples;
// more may follow). Rows for shapes not in the run are ignored. UserError naming the file when it
// is missing or malformed; the run is then left as it was.
void merge_torch_results(BenchRun& run, const std::string& torch_csv_path);

}  // namespace cl2
