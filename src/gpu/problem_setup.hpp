#pragma once
// Everything a problem needs on the GPU before any kernel is judged: buffers, deterministic inputs,
// the fp32 references, and the checks against them. measure/ProblemMeasurement holds them for the
// tuning worker and the benchmark alike.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "core/device_info.hpp"
#include "core/problem.hpp"
#include "gpu/problem_buffers.hpp"

namespace cl2 {

class CublasProviders;
class UtilityKernels;

// Allocates and fills the problem's buffers and computes both references. Throws UserError when
// the GPU has too little free memory for it.
std::unique_ptr<ProblemBuffers> make_problem_buffers(const Problem& problem, const DeviceInfo& device,
                                                     UtilityKernels& utility, CublasProviders& cublas,
                                                     cudaStream_t stream);

class OutputChecker {
 public:
  OutputChecker(const ProblemBuffers& buffers, UtilityKernels& utility, cudaStream_t stream)
      : buffers_(buffers), utility_(utility), stream_(stream) {}

  // max |C - reference| after `launch` wrote C from input set `set`; C is poisoned with NaN first,
  // so an output element the launch did not write fails.
  double max_diff(const std::function<void(cudaStream_t)>& launch, int set) const;
  double tolerance(int set) const;
  // A hash of the current output that any differing bit changes (UtilityKernels::output_hash): a
  // kernel must give the same answer every time it runs on the same inputs.
  std::uint64_t output_hash() const;

 private:
  const ProblemBuffers& buffers_;
  UtilityKernels& utility_;
  cudaStream_t stream_;
};

}  // namespace cl2
