#include "gpu/prepared_kernel.hpp"

#include "gpu/cuda_check.hpp"

namespace cl2 {

PreparedKernel::PreparedKernel(const std::string& cubin_path, const LaunchGeometry& geometry,
                               const ProblemBuffers& buffers)
    : module_(LoadedModule::from_file(cubin_path)),
      geometry_(geometry),
      workspace_(std::size_t(geometry.workspace_bytes)) {
  function_ = module_.function("cl2_gemm");
  set_shared_memory(function_, geometry);
  if (workspace_.bytes() > 0) CL2_CUDA(cudaMemset(workspace_.get(), 0, workspace_.bytes()));
  params_.reserve(std::size_t(buffers.slot_count()));
  for (int slot = 0; slot < buffers.slot_count(); ++slot)
    params_.push_back(make_gemm_params(geometry, buffers.problem, gemm_operands(buffers, slot), workspace_.get()));
}

void PreparedKernel::launch(cudaStream_t stream, int slot) const {
  launch_gemm(function_, geometry_, params_.at(std::size_t(slot)), stream, Overlap::WhereProgrammatic);
}

}  // namespace cl2
