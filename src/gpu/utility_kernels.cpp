#include "gpu/utility_kernels.hpp"

#include <cstring>
#include <stdexcept>

#include "codegen/codegen.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/embedded_files.hpp"
#include "core/hash.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/driver_api.hpp"

namespace cl2 {

namespace {

constexpr unsigned kThreads = 256;

void launch(CUfunction fn, unsigned blocks, cudaStream_t stream, void** args) {
  CUlaunchConfig config{};
  config.gridDimX = blocks;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = kThreads;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = reinterpret_cast<CUstream>(stream);
  CL2_CU(driver_api().launch_kernel_ex(&config, fn, args, nullptr));
}

unsigned blocks_for(long long count) {
  return unsigned(std::min<long long>(4096, (count + kThreads - 1) / kThreads + 1));
}

}  // namespace

UtilityKernels::UtilityKernels(const KernelCompiler& compiler, const std::string& arch)
    : result_(sizeof(std::uint64_t)) {
  auto text = find_embedded_file("templates/cl2_utility_kernels.cuh");
  if (!text) throw std::logic_error("templates/cl2_utility_kernels.cuh is not embedded");
  CompileJob job{{std::string(*text), content_hash(*text)},
                 {"--gpu-architecture=" + arch, "--std=c++17", "-default-device"}, arch};
  const CompiledKernel compiled = compiler.compile(job);
  if (!compiled.ok) throw std::runtime_error("utility kernels failed to compile: " + compiled.log);
  module_ = std::make_unique<LoadedModule>(LoadedModule::from_file(compiled.cubin_path));
  fill_ = module_->function("cl2_fill_uniform");
  diff_ = module_->function("cl2_max_abs_diff");
  max_ = module_->function("cl2_max_abs");
  hash_ = module_->function("cl2_output_hash");
  read_ = module_->function("cl2_read_stream");
}

void UtilityKernels::fill_uniform(void* out, long long count, unsigned seed, float scale,
                                  cudaStream_t s) {
  void* args[] = {&out, &count, &seed, &scale};
  launch(fill_, blocks_for(count), s, args);
}

double UtilityKernels::read_max(cudaStream_t s) {
  unsigned bits = 0;
  CL2_CUDA(cudaMemcpyAsync(&bits, result_.get(), sizeof(bits), cudaMemcpyDeviceToHost, s));
  CL2_CUDA(cudaStreamSynchronize(s));
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return double(value);
}

double UtilityKernels::max_abs_diff(const void* c, const float* ref, long long rows, long long cols,
                                    long long ldc, cudaStream_t s) {
  CL2_CUDA(cudaMemsetAsync(result_.get(), 0, sizeof(unsigned), s));
  void* result = result_.get();
  void* args[] = {&c, &ref, &rows, &cols, &ldc, &result};
  launch(diff_, blocks_for(rows * cols), s, args);
  return read_max(s);
}

std::uint64_t UtilityKernels::output_hash(const void* c, long long rows, long long cols, long long ldc,
                                          cudaStream_t s) {
  CL2_CUDA(cudaMemsetAsync(result_.get(), 0, sizeof(std::uint64_t), s));
  void* result = result_.get();
  void* args[] = {&c, &rows, &cols, &ldc, &result};
  launch(hash_, blocks_for(rows * cols), s, args);
  std::uint64_t hash = 0;
  CL2_CUDA(cudaMemcpyAsync(&hash, result_.get(), sizeof(hash), cudaMemcpyDeviceToHost, s));
  CL2_CUDA(cudaStreamSynchronize(s));
  return hash;
}

void UtilityKernels::read_stream(const void* data, long long bytes, cudaStream_t s) {
  long long words = bytes / 16;
  void* sink = result_.get();
  void* args[] = {&data, &words, &sink};
  launch(read_, blocks_for(words / 4), s, args);
}

double UtilityKernels::max_abs(const float* values, long long count, cudaStream_t s) {
  CL2_CUDA(cudaMemsetAsync(result_.get(), 0, sizeof(unsigned), s));
  void* result = result_.get();
  void* args[] = {&values, &count, &result};
  launch(max_, blocks_for(count), s, args);
  return read_max(s);
}

}  // namespace cl2
