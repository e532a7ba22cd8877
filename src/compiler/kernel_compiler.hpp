#pragma once
// Compiles generated kernels to cubins with NVRTC, in parallel, through an on-disk cache keyed by
// the source hash, the options, the NVRTC version and the architecture. A cache entry is a cubin
// plus a JSON sidecar (ptxas report and log), each written to a temporary name and renamed, so a
// killed compile never leaves a half-written entry.
#include <functional>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "compiler/ptxas_report.hpp"

namespace cl2 {

struct CompileJob {
  KernelSource source;
  std::vector<std::string> options;
  std::string arch;  // "sm_90a"
};

struct CompiledKernel {
  bool ok = false;
  std::string cache_key;
  std::string cubin_path;  // valid when ok
  std::string log;         // NVRTC and ptxas output (kept for failures and the report)
  PtxasReport report;
  bool from_cache = false;
  double seconds = 0;
};

std::string nvrtc_version_text();  // "13.0"

// The cache directory: $CUDA_L2_TUNE_CACHE, else $XDG_CACHE_HOME/cuda-l2-tune, else
// ~/.cache/cuda-l2-tune.
std::string default_cache_dir();

class KernelCompiler {
 public:
  explicit KernelCompiler(std::string cache_dir);

  CompiledKernel compile(const CompileJob& job) const;

  // Compiles every job on `threads` threads (0 = all cores); `on_done` is called (serialized) as
  // each finishes, with its index.
  std::vector<CompiledKernel> compile_all(
      const std::vector<CompileJob>& jobs, unsigned threads = 0,
      const std::function<void(std::size_t, const CompiledKernel&)>& on_done = {}) const;

  std::string cache_key(const CompileJob& job) const;

 private:
  std::string cache_dir_;
};

}  // namespace cl2
