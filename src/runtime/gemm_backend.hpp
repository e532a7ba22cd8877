#pragma once
// What executes the runtime's decisions: the GPU (runtime/gpu_gemm_backend) or, in the CPU tests,
// a fake that records the calls.
#include <vector>

#include "core/lt_algo_config.hpp"
#include "runtime/dispatch_table.hpp"
#include "search/candidates.hpp"

namespace cl2 {

// One GEMM as the caller gave it (validated): C = A * B, leading dimensions in elements.
struct GemmCall {
  Problem problem;
  const void* a = nullptr;
  long long lda = 0;
  const void* b = nullptr;
  long long ldb = 0;
  void* c = nullptr;
  long long ldc = 0;
  void* stream = nullptr;  // a cudaStream_t
  // Null, or N fp16 values added to every row of C (C = A * B + bias, F.linear's): our kernel's
  // bias twin (codegen Epilogue::Bias) adds it, or cuBLASLt's epilogue.
  const void* bias = nullptr;
};

// One of our kernels as the runtime would launch it at a call's shape: the cubin of `entry` with
// `geometry` (several geometries may share an entry: its split-K re-chosen).
struct CandidateLaunch {
  const DispatchEntry* entry = nullptr;
  const LaunchGeometry* geometry = nullptr;
};

class GemmBackend {
 public:
  virtual ~GemmBackend() = default;
  // Runs the kernel of `entry` with `geometry` (its launch geometry at call.problem), or with a
  // bias its bias twin (compiled or loaded at its first use); returns false, having run nothing,
  // where the cubins came without a twin (a bundle exported before twins existed).
  virtual bool run_kernel(const DispatchEntry& entry, const LaunchGeometry& geometry, const GemmCall& call) = 0;
  // Launches the kernels of `sequence` in that order on call.stream, with call's operands, each
  // between two events, waits for the last, and returns each launch's GPU time in µs. C is left
  // with the last launch's result. Never called while the stream is being captured.
  virtual std::vector<double> time_kernels(const std::vector<CandidateLaunch>& sequence, const GemmCall& call) = 0;
  // Whether `stream` is being captured into a CUDA graph, where nothing may be waited for (also
  // true where the driver cannot tell).
  virtual bool capturing(void* stream) = 0;
  // Runs cuBLASLt: the algorithm `algo` (null for none) where the heuristic still offers it, else
  // its first choice; with a bias, in its epilogue.
  virtual void run_library(const GemmCall& call, const LtAlgoConfig* algo) = 0;
};

}  // namespace cl2
