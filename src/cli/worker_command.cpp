#include "cli/commands.hpp"
#include "compiler/kernel_compiler.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

CommandRunner add_worker_command(CLI::App& app) {
  auto options = std::make_shared<WorkerOptions>();
  CLI::App* worker = app.add_subcommand("worker", "Internal: the GPU worker process `tune` starts");
  worker->group("");  // not a user command
  worker->add_option("--device", options->device);
  worker->add_option("--cache-dir", options->cache_dir);
  worker->add_flag("--fake-gpu", options->fake);
  worker->add_flag("--trace-kernels", options->trace_kernels);
  return [options] {
    if (options->cache_dir.empty()) options->cache_dir = default_cache_dir();
    return run_worker(*options);
  };
}

}  // namespace cl2
