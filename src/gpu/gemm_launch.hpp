#pragma once
// The host side of launching a generated kernel, shared by the tuner (PreparedKernel) and the
// runtime library: filling the kernel's Cl2GemmParams (tensor maps included) for one set of
// operands, and enqueueing a launch with the family's geometry and cluster shape.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../../templates/cl2_abi.cuh"
#include "core/problem.hpp"
#include "gpu/problem_buffers.hpp"
#include "search/candidates.hpp"

namespace cl2 {

// Where one launch reads A and B and writes C, with leading dimensions in elements.
struct GemmOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  long long lda = 0, ldb = 0, ldc = 0;
  const void* bias = nullptr;  // N fp16 values added to every row of C, by kernels compiled with CL2_BIAS
};

// Operand slot `slot` of `buffers` (ProblemBuffers::operands) with the buffers' leading dimensions.
GemmOperands gemm_operands(const ProblemBuffers& buffers, int slot);

// The kernel argument for `problem` on `operands`: pointers, sizes, the geometry's runtime fields
// and a tensor map per box the geometry names (encoded on the host, no GPU work).
Cl2GemmParams make_gemm_params(const LaunchGeometry& geometry, const Problem& problem,
                               const GemmOperands& operands, void* workspace);

// Opts `function` in to the geometry's dynamic shared memory; once per loaded kernel.
void set_shared_memory(CUfunction function, const LaunchGeometry& geometry);

// Whether a launch may overlap the previous kernel of its stream, where its geometry is
// programmatic (PDL). A programmatic kernel prefetches B before it waits for that kernel, so only a
// caller that knows the previous kernel did not write B may overlap: the tuner's own calls (B is
// written once, before any of them).
enum class Overlap { Never, WhereProgrammatic };

// Enqueues one launch on `stream`; the parameters are copied at enqueue time.
void launch_gemm(CUfunction function, const LaunchGeometry& geometry, const Cl2GemmParams& params,
                 cudaStream_t stream, Overlap overlap);

}  // namespace cl2
