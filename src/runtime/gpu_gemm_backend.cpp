#include "runtime/gpu_gemm_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/provider.hpp"
#include "gpu/cublas_providers.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/driver_api.hpp"
#include "gpu/stream_gate.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

GpuGemmBackend::GpuGemmBackend(std::unique_ptr<CubinSource> cubins, int device, Overlap overlap)
    : cubins_(std::move(cubins)), device_(device), overlap_(overlap) {
  CL2_CUBLAS(cublasLtCreate(&lt_handle_));
}

GpuGemmBackend::~GpuGemmBackend() {
  // Modules and buffers go before the handle; none of them throws on the way out.
  launches_.clear();
  entry_kernels_.clear();
  kernels_.clear();
  library_calls_.clear();
  library_workspaces_.clear();
  if (lt_handle_) cublasLtDestroy(lt_handle_);
}

void GpuGemmBackend::ensure_context() const {
  CUcontext context = nullptr;
  CL2_CU(driver_api().ctx_get_current(&context));
  if (!context) CL2_CUDA(cudaSetDevice(device_));
}

const GpuGemmBackend::Kernel* GpuGemmBackend::kernel(const DispatchEntry& entry, Epilogue epilogue) {
  const auto id = std::make_pair(&entry, epilogue);
  if (auto known = entry_kernels_.find(id); known != entry_kernels_.end()) return known->second;
  const bool bias = epilogue == Epilogue::Bias;
  // Entries that share a kernel share its module.
  const std::string key = bias ? entry.bias_twin_key() : entry.kernel_key();
  auto found = kernels_.find(key);
  if (found == kernels_.end()) {
    const std::optional<std::string> cubin = bias ? cubins_->bias_cubin(entry) : cubins_->cubin(entry);
    std::unique_ptr<Kernel> loaded;
    if (cubin) {
      LoadedModule module(*cubin);
      const CUfunction function = module.function("cl2_gemm");
      loaded = std::make_unique<Kernel>(Kernel{std::move(module), function});
    }
    found = kernels_.emplace(key, std::move(loaded)).first;
  }
  entry_kernels_.emplace(id, found->second.get());
  return found->second.get();
}

GpuGemmBackend::KernelLaunch& GpuGemmBackend::kernel_launch(const DispatchEntry& entry, const Kernel& kernel,
                                                            const LaunchGeometry& geometry, const GemmCall& call) {
  const GemmShape& s = call.problem.shape;
  auto& known = launches_[std::make_tuple(&entry, s.m, s.n, s.k, call.stream)];
  auto slot = std::find_if(known.begin(), known.end(), [&](const auto& l) { return l->geometry == geometry; });
  if (slot == known.end()) {
    auto made = std::make_unique<KernelLaunch>();
    made->geometry = geometry;
    made->workspace = DeviceBuffer(std::size_t(geometry.workspace_bytes));
    if (made->workspace.bytes() > 0)
      CL2_CUDA(cudaMemsetAsync(made->workspace.get(), 0, made->workspace.bytes(),
                               static_cast<cudaStream_t>(call.stream)));
    known.push_back(std::move(made));
    slot = std::prev(known.end());
  }
  KernelLaunch& launch = **slot;
  if (std::find(launch.opted_in.begin(), launch.opted_in.end(), kernel.function) == launch.opted_in.end()) {
    set_shared_memory(kernel.function, geometry);
    launch.opted_in.push_back(kernel.function);
  }
  const GemmOperands operands{call.a, call.b, call.c, call.lda, call.ldb, call.ldc, call.bias};
  const bool same = launch.params.m != 0 && launch.operands.a == operands.a && launch.operands.b == operands.b &&
                    launch.operands.c == operands.c && launch.operands.bias == operands.bias;
  if (!same) {
    launch.params = make_gemm_params(geometry, call.problem, operands, launch.workspace.get());
    launch.operands = operands;
  }
  return launch;
}

bool GpuGemmBackend::run_kernel(const DispatchEntry& entry, const LaunchGeometry& geometry, const GemmCall& call) {
  const std::lock_guard lock(mutex_);
  ensure_context();
  const Kernel* k = kernel(entry, call.bias ? Epilogue::Bias : Epilogue::Plain);
  if (!k) return false;
  const KernelLaunch& launch = kernel_launch(entry, *k, geometry, call);
  // Overlapped with the previous kernel only where the caller said that kernel never writes B.
  launch_gemm(k->function, geometry, launch.params, static_cast<cudaStream_t>(call.stream), overlap_);
  return true;
}

std::vector<double> GpuGemmBackend::time_kernels(const std::vector<CandidateLaunch>& sequence, const GemmCall& call) {
  const std::lock_guard lock(mutex_);
  ensure_context();
  const auto stream = static_cast<cudaStream_t>(call.stream);
  // Every module loaded, workspace allocated and argument filled before the first event: what is
  // timed is the launches alone. The tuned kernels, bias or not: a bias costs each about the same.
  std::vector<std::pair<CUfunction, const KernelLaunch*>> launches;
  for (const CandidateLaunch& run : sequence) {
    const Kernel& k = *kernel(*run.entry, Epilogue::Plain);
    launches.emplace_back(k.function, &kernel_launch(*run.entry, k, *run.geometry, call));
  }
  // Back to back behind a gate, one event between two launches, so that each launch's time is
  // its own and not the host's pace of enqueueing.
  std::vector<Event> events(sequence.size() + 1);
  StreamGate gate(stream);
  CL2_CUDA(cudaEventRecord(events.front().get(), stream));
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    launch_gemm(launches[i].first, *sequence[i].geometry, launches[i].second->params, stream, overlap_);
    CL2_CUDA(cudaEventRecord(events[i + 1].get(), stream));
  }
  gate.release();
  CL2_CUDA(cudaEventSynchronize(events.back().get()));
  std::vector<double> launch_us;
  for (std::size_t i = 0; i < sequence.size(); ++i) launch_us.push_back(1000.0 * elapsed_ms(events[i], events[i + 1]));
  return launch_us;
}

bool GpuGemmBackend::capturing(void* stream) {
  ensure_context();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status) != cudaSuccess) {
    // The legacy stream while another stream captures (cudaErrorStreamCaptureImplicit): nothing
    // may be waited for. The error is cleared, so that the caller's next check does not see it.
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

const DeviceBuffer& GpuGemmBackend::library_workspace(void* stream) {
  auto& slot = library_workspaces_[stream];
  if (!slot) slot = std::make_unique<DeviceBuffer>(CublasProviders::kWorkspaceBytes);
  return *slot;
}

const GpuGemmBackend::LibraryCall& GpuGemmBackend::library_call(const GemmCall& call, const LtAlgoConfig* algo) {
  const Problem& p = call.problem;
  const Epilogue epilogue = call.bias ? Epilogue::Bias : Epilogue::Plain;
  auto& slot = library_calls_[std::make_tuple(p.shape.m, p.shape.n, p.shape.k, p.layout, p.accum, call.lda, call.ldb,
                                              call.ldc, algo != nullptr, epilogue)];
  if (!slot) {
    auto matmul = std::make_unique<LtMatmul>(p, call.lda, call.ldb, call.ldc, epilogue);
    // The same choice as tune's cuBLASLt-autotune: its algorithm among the heuristic's, so that the
    // time recorded is the time given.
    const auto algorithms = matmul->algorithms(lt_handle_, CublasProviders::kWorkspaceBytes,
                                               algo ? kLtAutotuneAlgorithms : 1);
    if (algorithms.empty())
      throw RuntimeError(CL2_ERROR_CUDA, fmt::format("cl2_gemm {}: cuBLASLt offers no algorithm for it", p.text()));
    const LtAlgorithm* recorded = algo ? find_lt_algorithm(algorithms, *algo) : nullptr;
    slot = std::make_unique<LibraryCall>(LibraryCall{std::move(matmul), recorded ? *recorded : algorithms.front()});
  }
  return *slot;
}

void GpuGemmBackend::run_library(const GemmCall& call, const LtAlgoConfig* algo) {
  const std::lock_guard lock(mutex_);
  ensure_context();
  const LibraryCall& library = library_call(call, algo);
  const DeviceBuffer& workspace = library_workspace(call.stream);
  library.matmul->enqueue(lt_handle_, library.algorithm.algo, call.a, call.b, call.c, workspace.get(),
                          workspace.bytes(), static_cast<cudaStream_t>(call.stream), call.bias);
}

}  // namespace cl2
