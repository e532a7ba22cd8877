#include "gpu/cublas_providers.hpp"

#include <fmt/format.h>

#include "core/provider.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/lt_algo_query.hpp"

namespace cl2 {

namespace {

// Column-major view of the row-major problem: C^T (N x M) = op(B) (N x K) * A^T (K x M).
struct ColumnMajorGemm {
  cublasOperation_t op_b;
  int rows, cols, depth;  // N, M, K
  long long ldb;
};

ColumnMajorGemm column_major(const Problem& p, Layout b_layout) {
  // TN stores B as N rows of K = column-major K x N, read transposed; NN stores K rows of N =
  // column-major N x K, read as is.
  const bool tn = b_layout == Layout::TN;
  return {tn ? CUBLAS_OP_T : CUBLAS_OP_N, int(p.shape.n), int(p.shape.m), int(p.shape.k),
          tn ? p.shape.k : p.shape.n};
}

}  // namespace

struct CublasProviders::LtDescriptors {
  Problem problem;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  ~LtDescriptors() {
    if (op) cublasLtMatmulDescDestroy(op);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
  }
};

CublasProviders::CublasProviders() : workspace_(kWorkspaceBytes) {
  CL2_CUBLAS(cublasCreate(&handle_));
  CL2_CUBLAS(cublasLtCreate(&lt_handle_));
  // A user workspace keeps cuBLAS from allocating inside graph capture.
  CL2_CUBLAS(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
}

CublasProviders::~CublasProviders() {
  lt_.reset();
  if (lt_handle_) cublasLtDestroy(lt_handle_);
  if (handle_) cublasDestroy(handle_);
}

TimedCall CublasProviders::gemm_ex(const ProblemBuffers& buffers, int slot, Layout b_layout) {
  const ColumnMajorGemm g = column_major(buffers.problem, b_layout);
  const Operands in = buffers.operands(slot);
  const bool f16 = buffers.problem.accum == Accum::F16;
  const std::string name(to_string(cublas_gemm_ex(b_layout)));
  return {name, [this, g, in, f16](cudaStream_t stream) {
            static const float one = 1.f, zero = 0.f;
            static const unsigned short half_one = 0x3c00, half_zero = 0;
            CL2_CUBLAS(cublasSetStream(handle_, stream));
            CL2_CUBLAS(cublasGemmEx(
                handle_, g.op_b, CUBLAS_OP_N, g.rows, g.cols, g.depth,
                f16 ? static_cast<const void*>(&half_one) : &one, in.b, CUDA_R_16F, int(g.ldb),
                in.a, CUDA_R_16F, g.depth, f16 ? static_cast<const void*>(&half_zero) : &zero,
                in.c, CUDA_R_16F, g.rows, f16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT));
          }};
}

void CublasProviders::reference(const ProblemBuffers& buffers, int set, cudaStream_t stream) {
  const ColumnMajorGemm g = column_major(buffers.problem, buffers.problem.layout);
  const InputSet& in = buffers.sets[set];
  const float one = 1.f, zero = 0.f;
  CL2_CUBLAS(cublasSetStream(handle_, stream));
  CL2_CUBLAS(cublasGemmEx(handle_, g.op_b, CUBLAS_OP_N, g.rows, g.cols, g.depth, &one, in.b.get(),
                          CUDA_R_16F, int(g.ldb), in.a.get(), CUDA_R_16F, g.depth, &zero,
                          in.ref.get(), CUDA_R_32F, g.rows, CUBLAS_COMPUTE_32F_PEDANTIC,
                          CUBLAS_GEMM_DEFAULT));
}

CublasProviders::LtDescriptors& CublasProviders::lt_descriptors(const ProblemBuffers& buffers) {
  if (lt_ && lt_->problem == buffers.problem) return *lt_;
  lt_.reset();
  auto d = std::make_unique<LtDescriptors>();
  d->problem = buffers.problem;
  const ColumnMajorGemm g = column_major(buffers.problem, buffers.problem.layout);
  const bool f16 = buffers.problem.accum == Accum::F16;
  CL2_CUBLAS(cublasLtMatmulDescCreate(&d->op, f16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F,
                                      f16 ? CUDA_R_16F : CUDA_R_32F));
  const cublasOperation_t op_b = g.op_b, op_a = CUBLAS_OP_N;
  // cuBLASLt's "A" is our B^T and its "B" our A^T (see ColumnMajorGemm).
  CL2_CUBLAS(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)));
  CL2_CUBLAS(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)));
  const bool tn = g.op_b == CUBLAS_OP_T;
  CL2_CUBLAS(cublasLtMatrixLayoutCreate(&d->a, CUDA_R_16F, tn ? g.depth : g.rows,
                                        tn ? g.rows : g.depth, g.ldb));
  CL2_CUBLAS(cublasLtMatrixLayoutCreate(&d->b, CUDA_R_16F, g.depth, g.cols, g.depth));
  CL2_CUBLAS(cublasLtMatrixLayoutCreate(&d->c, CUDA_R_16F, g.rows, g.cols, g.rows));
  lt_ = std::move(d);
  return *lt_;
}

std::vector<LtAlgorithm> CublasProviders::lt_algorithms(const ProblemBuffers& buffers, int max_count) {
  LtDescriptors& d = lt_descriptors(buffers);
  cublasLtMatmulPreference_t preference = nullptr;
  CL2_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
  const std::size_t workspace = workspace_.bytes();
  CL2_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(max_count));
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      lt_handle_, d.op, d.a, d.b, d.c, d.c, preference, max_count, results.data(), &found);
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

TimedCall CublasProviders::lt_matmul(const ProblemBuffers& buffers, int slot,
                                     const LtAlgorithm& algorithm) {
  LtDescriptors& d = lt_descriptors(buffers);
  const Operands in = buffers.operands(slot);
  const bool f16 = buffers.problem.accum == Accum::F16;
  return {fmt::format("cublaslt_algo{}", algorithm.rank),
          [this, &d, in, algorithm, f16](cudaStream_t stream) {
            static const float one = 1.f, zero = 0.f;
            static const unsigned short half_one = 0x3c00, half_zero = 0;
            CL2_CUBLAS(cublasLtMatmul(
                lt_handle_, d.op, f16 ? static_cast<const void*>(&half_one) : &one, in.b, d.a,
                in.a, d.b, f16 ? static_cast<const void*>(&half_zero) : &zero, in.c,
                d.c, in.c, d.c, &algorithm.algo, workspace_.get(), workspace_.bytes(),
                stream));
          }};
}

}  // namespace cl2
