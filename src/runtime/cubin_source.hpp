#pragma once
// Where the runtime gets a kernel's cubin: from memory (a bundle read at open, or a header
// compiled into the program), or from the kernel cache of a tuning database's machine, compiled
// again where the cache lost it. Asked once per kernel: the GPU backend keeps the loaded module.
#include <map>
#include <optional>
#include <string>

#include "compiler/kernel_compiler.hpp"
#include "runtime/dispatch_table.hpp"
#include "tune/rebuild.hpp"

namespace cl2 {

class CubinSource {
 public:
  virtual ~CubinSource() = default;
  // The cubin of the entry's kernel; throws RuntimeError where there is none.
  virtual std::string cubin(const DispatchEntry& entry) const = 0;
  // The cubin of its bias twin (the same configuration compiled with Epilogue::Bias), or nullopt
  // where this source cannot make one (the runtime then sends calls with a bias to cuBLASLt).
  virtual std::optional<std::string> bias_cubin(const DispatchEntry& entry) const = 0;
};

// Cubins by DispatchEntry::kernel_key() and bias_twin_key() (a bundle's; one exported before bias
// twins existed has none).
class StoredCubins : public CubinSource {
 public:
  explicit StoredCubins(std::map<std::string, std::string> by_key) : by_key_(std::move(by_key)) {}
  std::string cubin(const DispatchEntry& entry) const override;
  std::optional<std::string> bias_cubin(const DispatchEntry& entry) const override;

 private:
  std::map<std::string, std::string> by_key_;
};

// The entry's kernel from the cache, compiled where the cache lost it; throws UserError where its
// family is unknown, it no longer compiles, or its template changed since it was tuned.
RebuiltKernel rebuild_entry_kernel(const DispatchEntry& entry, const KernelCompiler& compiler);
// The compile job of the entry's bias twin: its configuration with Epilogue::Bias.
CompileJob bias_twin_job(const DispatchEntry& entry, const FamilySpec& family);
// The entry's bias twin (compiled, or from the cache, once the tuned kernel's source is checked as
// rebuild_entry_kernel does), or nullopt where it does not compile.
std::optional<RebuiltKernel> rebuild_bias_twin(const DispatchEntry& entry, const KernelCompiler& compiler);
// A cubin file's bytes; throws UserError naming it.
std::string read_cubin(const std::string& path);

// Cubins of the built-in families compiled through `compiler` (the kernel cache); a bias twin is
// compiled at its first use, from the tuned kernel's configuration once its source is checked.
class CompiledCubins : public CubinSource {
 public:
  explicit CompiledCubins(KernelCompiler compiler) : compiler_(std::move(compiler)) {}
  std::string cubin(const DispatchEntry& entry) const override;
  std::optional<std::string> bias_cubin(const DispatchEntry& entry) const override;

 private:
  KernelCompiler compiler_;
};

}  // namespace cl2
