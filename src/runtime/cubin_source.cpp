#include "runtime/cubin_source.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "core/errors.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

std::string StoredCubins::cubin(const DispatchEntry& entry) const {
  const auto found = by_key_.find(entry.kernel_key());
  if (found == by_key_.end())
    throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE, fmt::format("kernel {} is not in the bundle; export the bundle again",
                                                             entry.kernel_key()));
  return found->second;
}

RebuiltKernel rebuild_entry_kernel(const DispatchEntry& entry, const KernelCompiler& compiler) {
  KernelRecord kernel;
  kernel.family = entry.config.family;
  kernel.config_json = entry.config.to_json();
  kernel.source_hash = entry.source_hash;
  kernel.arch = entry.arch;
  return rebuild_kernel(kernel, entry.problem.layout, entry.problem.accum, entry.problem.text(), {}, compiler);
}

std::optional<std::string> StoredCubins::bias_cubin(const DispatchEntry& entry) const {
  const auto found = by_key_.find(entry.bias_twin_key());
  if (found == by_key_.end()) return std::nullopt;
  return found->second;
}

CompileJob bias_twin_job(const DispatchEntry& entry, const FamilySpec& family) {
  return {generate_source(family, entry.config, entry.problem.layout, entry.problem.accum, Epilogue::Bias),
          compile_options(family, entry.arch), entry.arch};
}

std::optional<RebuiltKernel> rebuild_bias_twin(const DispatchEntry& entry, const KernelCompiler& compiler) {
  RebuiltKernel twin = rebuild_entry_kernel(entry, compiler);  // the tuned kernel's template first
  const CompileJob job = bias_twin_job(entry, *twin.family);
  twin.source = job.source;
  twin.compiled = compiler.compile(job);
  if (!twin.compiled.ok) return std::nullopt;
  return twin;
}

std::string read_cubin(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof()) throw UserError(fmt::format("{}: cannot read the cubin; clear the kernel cache", path));
  return bytes;
}

std::string CompiledCubins::cubin(const DispatchEntry& entry) const {
  try {
    return read_cubin(rebuild_entry_kernel(entry, compiler_).compiled.cubin_path);
  } catch (const UserError& e) {
    throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE, e.what());
  }
}

std::optional<std::string> CompiledCubins::bias_cubin(const DispatchEntry& entry) const {
  try {
    const std::optional<RebuiltKernel> twin = rebuild_bias_twin(entry, compiler_);
    if (!twin) return std::nullopt;
    return read_cubin(twin->compiled.cubin_path);
  } catch (const UserError& e) {
    throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE, e.what());
  }
}

}  // namespace cl2
