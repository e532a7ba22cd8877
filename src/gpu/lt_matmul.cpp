#include "gpu/lt_matmul.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/lt_algo_query.hpp"

namespace cl2 {

ColumnMajorGemm column_major(const Problem& p, Layout b_layout) {
  // TN stores B as N rows of K = column-major K x N, read transposed; NN stores K rows of N =
  // column-major N x K, read as is.
  const bool tn = b_layout == Layout::TN;
  return {tn ? CUBLAS_OP_T : CUBLAS_OP_N, int(p.shape.n), int(p.shape.m), int(p.shape.k),
          tn ? p.shape.k : p.shape.n};
}

LtMatmul::LtMatmul(const Problem& problem, long long lda, long long ldb, long long ldc, Epilogue epilogue)
    : f16_(problem.accum == Accum::F16) {
  const ColumnMajorGemm g = column_major(problem, problem.layout);
  try {
    CL2_CUBLAS(cublasLtMatmulDescCreate(&op_, f16_ ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F,
                                        f16_ ? CUDA_R_16F : CUDA_R_32F));
    const cublasOperation_t op_b = g.op_b, op_a = CUBLAS_OP_N;
    // cuBLASLt's "A" is our B^T and its "B" our A^T (see ColumnMajorGemm).
    CL2_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)));
    CL2_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)));
    if (epilogue == Epilogue::Bias) {
      const cublasLtEpilogue_t bias = CUBLASLT_EPILOGUE_BIAS;
      const cudaDataType_t bias_type = CUDA_R_16F;
      CL2_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &bias, sizeof(bias)));
      CL2_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                sizeof(bias_type)));
    }
    const bool tn = g.op_b == CUBLAS_OP_T;
    CL2_CUBLAS(cublasLtMatrixLayoutCreate(&a_, CUDA_R_16F, tn ? g.depth : g.rows, tn ? g.rows : g.depth, ldb));
    CL2_CUBLAS(cublasLtMatrixLayoutCreate(&b_, CUDA_R_16F, g.depth, g.cols, lda));
    CL2_CUBLAS(cublasLtMatrixLayoutCreate(&c_, CUDA_R_16F, g.rows, g.cols, ldc));
  } catch (...) {
    destroy();  // a constructor that throws runs no destructor
    throw;
  }
}

LtMatmul::~LtMatmul() { destroy(); }

void LtMatmul::destroy() {
  if (op_) cublasLtMatmulDescDestroy(op_);
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (c_) cublasLtMatrixLayoutDestroy(c_);
  op_ = nullptr;
  a_ = b_ = c_ = nullptr;
}

std::vector<LtAlgorithm> LtMatmul::algorithms(cublasLtHandle_t handle, std::size_t workspace_bytes,
                                              int max_count) const {
  cublasLtMatmulPreference_t preference = nullptr;
  CL2_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof(workspace_bytes));
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(max_count));
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handle, op_, a_, b_, c_, c_, preference, max_count, results.data(),
                                            &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS) CL2_CUBLAS(status);
  std::vector<LtAlgorithm> algorithms;
  for (int i = 0; i < found; ++i) {
    const cublasLtMatmulHeuristicResult_t& result = results[std::size_t(i)];
    if (result.state == CUBLAS_STATUS_SUCCESS)
      algorithms.push_back({result.algo, result.workspaceSize, i, query_lt_algo_config(result.algo)});
  }
  return algorithms;
}

void LtMatmul::enqueue(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                       void* c, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                       const void* bias) const {
  static const float one = 1.f, zero = 0.f;
  static const unsigned short half_one = 0x3c00, half_zero = 0;
  if (bias) CL2_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  CL2_CUBLAS(cublasLtMatmul(handle, op_, f16_ ? static_cast<const void*>(&half_one) : &one, b, a_, a, b_,
                            f16_ ? static_cast<const void*>(&half_zero) : &zero, c, c_, c, c_, &algo, workspace,
                            workspace_bytes, stream));
}

const LtAlgorithm* find_lt_algorithm(const std::vector<LtAlgorithm>& algorithms, const LtAlgoConfig& wanted) {
  for (const auto& algorithm : algorithms)
    if (algorithm.config == wanted) return &algorithm;
  return nullptr;
}

}  // namespace cl2
