#pragma once
// A compiled candidate made ready to launch on one problem: module loaded, shared-memory and
// cluster attributes set, workspace allocated and zeroed, and one Cl2GemmParams (with its tensor
// maps) per operand slot (input sets and rotated copies, see ProblemBuffers). launch() then only enqueues: nothing is allocated, set or looked up per
// call, which is the launch path a user of the winning kernel gets.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <vector>
#include <string>

#include "gpu/device_buffer.hpp"
#include "gpu/gemm_launch.hpp"
#include "gpu/loaded_module.hpp"
#include "gpu/problem_buffers.hpp"

namespace cl2 {

class PreparedKernel {
 public:
  PreparedKernel(const std::string& cubin_path, const LaunchGeometry& geometry,
                 const ProblemBuffers& buffers);

  void launch(cudaStream_t stream, int slot = 0) const;

 private:
  LoadedModule module_;
  CUfunction function_ = nullptr;
  LaunchGeometry geometry_;
  DeviceBuffer workspace_;
  std::vector<Cl2GemmParams> params_;
};

}  // namespace cl2
