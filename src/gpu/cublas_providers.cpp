#include "gpu/cublas_providers.hpp"

#include <fmt/format.h>

#include "core/provider.hpp"
#include "gpu/cuda_check.hpp"

namespace cl2 {

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

const LtMatmul& CublasProviders::lt_matmul_of(const ProblemBuffers& buffers) {
  if (lt_ && lt_problem_ == buffers.problem) return *lt_;
  lt_.reset();
  lt_ = std::make_unique<LtMatmul>(buffers.problem, buffers.lda(), buffers.ldb(), buffers.ldc());
  lt_problem_ = buffers.problem;
  return *lt_;
}

std::vector<LtAlgorithm> CublasProviders::lt_algorithms(const ProblemBuffers& buffers, int max_count) {
  return lt_matmul_of(buffers).algorithms(lt_handle_, workspace_.bytes(), max_count);
}

TimedCall CublasProviders::lt_matmul(const ProblemBuffers& buffers, int slot,
                                     const LtAlgorithm& algorithm) {
  const LtMatmul& matmul = lt_matmul_of(buffers);
  const Operands in = buffers.operands(slot);
  return {fmt::format("cublaslt_algo{}", algorithm.rank), [this, &matmul, in, algorithm](cudaStream_t stream) {
            matmul.enqueue(lt_handle_, algorithm.algo, in.a, in.b, in.c, workspace_.get(), workspace_.bytes(),
                           stream);
          }};
}

}  // namespace cl2
