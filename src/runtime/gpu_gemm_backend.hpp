#pragma once
// The runtime's GPU side. Each kernel's module is loaded once (into the context current then);
// per (kernel, shape, launch geometry, stream) the split-K workspace is allocated and zeroed once
// and the kernel argument, tensor maps included, is kept and only filled again when the operands
// move (one kernel runs at one shape with several geometries where first-call timing tries its
// split-K factors: each keeps its own workspace and argument; a kernel's bias twin shares them); per
// problem and leading dimensions cuBLASLt's descriptors and algorithm are found once, and each
// stream gets its own cuBLASLt workspace (two streams must not share one). In the steady state a
// call allocates nothing. One mutex guards the caches; everything lives until the handle closes.
#include <cublasLt.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/gemm_launch.hpp"
#include "gpu/loaded_module.hpp"
#include "gpu/lt_matmul.hpp"
#include "runtime/cubin_source.hpp"
#include "runtime/gemm_backend.hpp"

namespace cl2 {

class GpuGemmBackend : public GemmBackend {
 public:
  // `overlap`: WhereProgrammatic launches PDL=1 kernels with programmatic dependent launch, which
  // only a caller whose previous kernels never write B may ask for (CL2_OPEN_WEIGHTS_READ_ONLY).
  GpuGemmBackend(std::unique_ptr<CubinSource> cubins, int device, Overlap overlap = Overlap::Never);
  ~GpuGemmBackend() override;

  bool run_kernel(const DispatchEntry& entry, const LaunchGeometry& geometry, const GemmCall& call) override;
  void run_library(const GemmCall& call, const LtAlgoConfig* algo) override;
  std::vector<double> time_kernels(const std::vector<CandidateLaunch>& sequence, const GemmCall& call) override;
  bool capturing(void* stream) override;

 private:
  struct Kernel {
    LoadedModule module;
    CUfunction function = nullptr;
  };
  struct KernelLaunch {
    LaunchGeometry geometry;  // which of the kernel's launches at the shape this is
    DeviceBuffer workspace;
    GemmOperands operands;  // those `params` was filled for
    Cl2GemmParams params{};
    // The kernels (tuned, bias twin) opted in to the geometry's shared memory, once each.
    std::vector<CUfunction> opted_in;
  };
  struct LibraryCall {
    std::unique_ptr<LtMatmul> matmul;
    LtAlgorithm algorithm;
  };

  // The entry's kernel or its bias twin, loaded on first use; null for a twin the cubins lack.
  const Kernel* kernel(const DispatchEntry& entry, Epilogue epilogue);
  KernelLaunch& kernel_launch(const DispatchEntry& entry, const Kernel& kernel, const LaunchGeometry& geometry,
                              const GemmCall& call);
  const LibraryCall& library_call(const GemmCall& call, const LtAlgoConfig* algo);
  const DeviceBuffer& library_workspace(void* stream);
  // Makes the handle's device current where the calling thread has no context yet.
  void ensure_context() const;

  std::unique_ptr<CubinSource> cubins_;
  int device_;
  Overlap overlap_;
  std::mutex mutex_;
  // By kernel key or bias twin key, loaded once; null where there is no twin.
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
  std::map<std::pair<const DispatchEntry*, Epilogue>, const Kernel*> entry_kernels_;  // found without building a key
  // Per kernel, shape and stream, one launch per geometry (few: found by comparing them).
  std::map<std::tuple<const DispatchEntry*, std::int64_t, std::int64_t, std::int64_t, void*>,
           std::vector<std::unique_ptr<KernelLaunch>>>
      launches_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, Layout, Accum, long long, long long, long long, bool,
                      Epilogue>,
           std::unique_ptr<LibraryCall>>
      library_calls_;
  std::map<void*, std::unique_ptr<DeviceBuffer>> library_workspaces_;  // by stream
  cublasLtHandle_t lt_handle_ = nullptr;
};

}  // namespace cl2
