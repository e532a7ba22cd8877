#pragma once
// One cuBLASLt matmul of our row-major problem, for the tuner's baselines and the runtime
// library's fallback: the descriptors (made once per problem and leading dimensions), the
// heuristic's algorithms for them, and the enqueue. Row-major C = A * B is computed as
// column-major C^T = B^T * A^T, so no data is transposed.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <optional>
#include <vector>

#include "core/lt_algo_config.hpp"
#include "core/problem.hpp"

namespace cl2 {

// Column-major view of the row-major problem: C^T (N x M) = op(B) (N x K) * A^T (K x M).
struct ColumnMajorGemm {
  cublasOperation_t op_b;
  int rows, cols, depth;  // N, M, K
  long long ldb;
};
ColumnMajorGemm column_major(const Problem& p, Layout b_layout);

struct LtAlgorithm {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
  int rank = 0;  // position in the heuristic's answer (0 = its first choice)
  std::optional<LtAlgoConfig> config;  // tile, stages, split-K...; nullopt where cuBLASLt did not say
};

class LtMatmul {
 public:
  // Leading dimensions in elements, as our row-major operands have them (lda >= K, ldc >= N, ldb
  // >= K for TN and >= N for NN). Epilogue::Bias: cuBLASLt adds an fp16 bias per row of its C^T,
  // one per column of our C, in its epilogue (the pointer comes with each enqueue).
  LtMatmul(const Problem& problem, long long lda, long long ldb, long long ldc,
           Epilogue epilogue = Epilogue::Plain);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Up to `max_count` algorithms the heuristic proposes within `workspace_bytes`, best guess first.
  std::vector<LtAlgorithm> algorithms(cublasLtHandle_t handle, std::size_t workspace_bytes, int max_count) const;

  // `bias`: N fp16 values, for a matmul made with Epilogue::Bias (null otherwise). Not thread-safe
  // with a bias: the pointer is set on the shared descriptor.
  void enqueue(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* c,
               void* workspace, std::size_t workspace_bytes, cudaStream_t stream, const void* bias = nullptr) const;

 private:
  void destroy();

  bool f16_ = false;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;  // cuBLASLt's A (our B), B (our A), C
};

// Of `algorithms`, the one whose configuration is `wanted` (the one tune recorded), else nullptr.
const LtAlgorithm* find_lt_algorithm(const std::vector<LtAlgorithm>& algorithms, const LtAlgoConfig& wanted);

}  // namespace cl2
