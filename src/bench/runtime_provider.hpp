#pragma once
// bench's provider "runtime": the runtime library (libcl2) as a program calls it, host cost
// included. Each call is Runtime::gemm on the measurement's buffers, which is cl2_gemm less the C
// shim that turns exceptions into status codes: argument checks, the per-shape decision (exact
// winner, a nearby tuned shape's, or cuBLASLt) and the backend's launch, every call. It is opened
// once per bench run on --runtime-db (default --db), so the table it dispatches from may be
// another database than the one "ours" comes from: the runtime on untuned shapes (nearest-shape
// dispatch) against the same shapes tuned directly.
#include <memory>
#include <string>

#include "bench/bench_records.hpp"
#include "measure/problem_measurement.hpp"
#include "runtime/runtime_open.hpp"

namespace cl2 {

// `path` read as the runtime reads it (a tuning database or a bundle folder), without a GPU, so a
// bad --runtime-db is reported before anything is measured. UserError naming the option and the
// fix.
RuntimeInput read_runtime_db(const std::string& path, const std::string& cache_dir);

class RuntimeProvider {
 public:
  // The runtime for the current device, with first-call timing as CL2_FIRST_CALL_TIMING says;
  // UserError naming --runtime-db where `input` holds no table tuned on this GPU, or the variable
  // where its value is bad.
  explicit RuntimeProvider(RuntimeInput input);

  // The runtime's call on `measurement`'s buffers (rotated copies included), after one real call
  // on every operand slot (the runtime compiles, loads and allocates on first use, and times an
  // untuned shape's candidates at its first call, none of which a CUDA graph capture must see) and
  // a check of its output on both input sets; `route` receives where the runtime sent it and how
  // it chose. Throws std::runtime_error when the output fails the check.
  ProviderCall call(const ProblemMeasurement& measurement, RuntimeRoute& route);

 private:
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace cl2
