#pragma once
// The library baselines: cuBLAS GemmEx (B read as TN or as NN), cuBLASLt with the heuristic's
// algorithms, and the fp32 reference. Row-major C = A * B is computed as column-major
// C^T = B^T * A^T, so no data is transposed. Handles and the workspace are made once; each call
// only enqueues (no allocation or lookup per call), so graphs can capture them.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/lt_algo_config.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/lt_matmul.hpp"
#include "gpu/problem_buffers.hpp"
#include "gpu/timing.hpp"

namespace cl2 {

class CublasProviders {
 public:
  static constexpr std::size_t kWorkspaceBytes = 64u << 20;

  CublasProviders();
  ~CublasProviders();
  CublasProviders(const CublasProviders&) = delete;
  CublasProviders& operator=(const CublasProviders&) = delete;

  // cublasGemmEx on input set `set`, reading B as `b_layout` (the problem's own layout gives the
  // right product; the other layout computes a different product of the same cost, which is how
  // CUDA-L2's "cuBLAS-max" takes the faster of NN and TN).
  // `slot` picks the operands (ProblemBuffers::operands).
  TimedCall gemm_ex(const ProblemBuffers& buffers, int slot, Layout b_layout);

  // Up to `max_count` algorithms the cuBLASLt heuristic proposes for the problem (best guess first).
  std::vector<LtAlgorithm> lt_algorithms(const ProblemBuffers& buffers, int max_count);
  TimedCall lt_matmul(const ProblemBuffers& buffers, int slot, const LtAlgorithm& algorithm);

  // ref = A * B in fp32 with fp32 accumulation (CUBLAS_COMPUTE_32F_PEDANTIC: no reduced precision).
  void reference(const ProblemBuffers& buffers, int set, cudaStream_t stream);

 private:
  // The matmul of the buffers' problem, made again only when the problem changes.
  const LtMatmul& lt_matmul_of(const ProblemBuffers& buffers);

  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lt_handle_ = nullptr;
  DeviceBuffer workspace_;
  Problem lt_problem_;
  std::unique_ptr<LtMatmul> lt_;
};

}  // namespace cl2
