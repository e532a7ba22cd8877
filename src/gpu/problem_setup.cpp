#include "gpu/problem_setup.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/verification.hpp"
#include "gpu/cublas_providers.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/utility_kernels.hpp"

namespace cl2 {

namespace {
constexpr unsigned char kPoisonByte = 0xff;  // fp16 0xffff is a NaN
constexpr float kScales[2] = {1.0f, 4.0f};   // inputs uniform in [-0.5, 0.5] and [-2, 2]
}  // namespace

std::unique_ptr<ProblemBuffers> make_problem_buffers(const Problem& problem, const DeviceInfo& device,
                                                     UtilityKernels& utility, CublasProviders& cublas,
                                                     cudaStream_t stream) {
  const GemmShape& s = problem.shape;
  const std::size_t needed = std::size_t(problem_device_bytes(problem, device.l2_bytes));
  size_t free_bytes = 0, total_bytes = 0;
  CL2_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t reserve = std::size_t(1) << 30;  // kernel workspaces, cuBLAS, graphs
  if (needed + reserve > free_bytes)
    throw UserError(fmt::format(
        "shape {}: needs {:.1f} GiB of GPU memory for inputs, references, output and rotated copies, {} has {:.1f} "
        "GiB free; remove or split this shape",
        problem.text(), double(needed) / (1 << 30), device.name, double(free_bytes) / (1 << 30)));
  auto buffers = std::make_unique<ProblemBuffers>();
  buffers->problem = problem;
  buffers->c = DeviceBuffer(std::size_t(s.m * s.n * 2));
  for (int set = 0; set < 2; ++set) {
    InputSet& in = buffers->sets[std::size_t(set)];
    in.a = DeviceBuffer(std::size_t(s.m * s.k * 2));
    in.b = DeviceBuffer(std::size_t(s.k * s.n * 2));
    in.ref = DeviceBuffer(std::size_t(s.m * s.n * 4));
    in.scale = kScales[set];
    in.seed = 1000u + unsigned(set);
    utility.fill_uniform(in.a.get(), s.m * s.k, in.seed, in.scale, stream);
    utility.fill_uniform(in.b.get(), s.k * s.n, in.seed + 7919u, in.scale, stream);
    cublas.reference(*buffers, set, stream);
    in.max_abs_ref = utility.max_abs(in.ref.as<float>(), s.m * s.n, stream);
  }
  const InputSet& first = buffers->sets[0];
  for (int copy = 1; copy < rotation_copies(problem, device.l2_bytes); ++copy) {
    OperandCopy& rotated = buffers->rotation.emplace_back(
        OperandCopy{DeviceBuffer(first.a.bytes()), DeviceBuffer(first.b.bytes()), DeviceBuffer(buffers->c.bytes())});
    CL2_CUDA(cudaMemcpyAsync(rotated.a.get(), first.a.get(), first.a.bytes(), cudaMemcpyDeviceToDevice, stream));
    CL2_CUDA(cudaMemcpyAsync(rotated.b.get(), first.b.get(), first.b.bytes(), cudaMemcpyDeviceToDevice, stream));
  }
  return buffers;
}

Operands ProblemBuffers::operands(int slot) const {
  if (slot < 2) {
    const InputSet& in = sets[std::size_t(slot)];
    return {in.a.get(), in.b.get(), c.get()};
  }
  const OperandCopy& copy = rotation.at(std::size_t(slot - 2));
  return {copy.a.get(), copy.b.get(), copy.c.get()};
}

std::vector<int> ProblemBuffers::rotation_slots() const {
  if (rotation.empty()) return {};
  std::vector<int> slots = {0};
  for (int slot = 2; slot < slot_count(); ++slot) slots.push_back(slot);
  return slots;
}

double OutputChecker::max_diff(const std::function<void(cudaStream_t)>& launch, int set) const {
  const Problem& p = buffers_.problem;
  CL2_CUDA(cudaMemsetAsync(buffers_.c.get(), kPoisonByte, buffers_.c.bytes(), stream_));
  launch(stream_);
  return utility_.max_abs_diff(buffers_.c.get(), buffers_.sets[std::size_t(set)].ref.as<float>(),
                               p.shape.m, p.shape.n, buffers_.ldc(), stream_);
}

std::uint64_t OutputChecker::output_hash() const {
  const Problem& p = buffers_.problem;
  return utility_.output_hash(buffers_.c.get(), p.shape.m, p.shape.n, buffers_.ldc(), stream_);
}

double OutputChecker::tolerance(int set) const {
  return verification_tolerance(buffers_.problem.accum, buffers_.problem.shape.k,
                                buffers_.sets[std::size_t(set)].max_abs_ref);
}

}  // namespace cl2
