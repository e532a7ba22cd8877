// The Python parts of `bench`: torch.matmul timings (scripts/torch_bench.py, run where PyTorch is
// installed; never a build dependency) and the plots (scripts/plot_bench.py, matplotlib).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "bench/bench_report.hpp"
#include "bench/bench_steps.hpp"
#include "core/errors.hpp"

namespace cl2 {

namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<int>& values) {
  std::string text;
  for (int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

// The script's path: as given, else scripts/ beside the binary's tree or the working directory.
std::string find_script(const std::string& given, const std::string& name) {
  if (!given.empty()) return fs::exists(given) ? given : "";
  std::vector<fs::path> roots;
  if (const char* dir = std::getenv("CL2_SCRIPTS_DIR")) roots.emplace_back(dir);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    roots.push_back(exe.parent_path().parent_path() / "scripts");
    roots.push_back(exe.parent_path().parent_path().parent_path() / "scripts");
  }
  roots.push_back(fs::current_path(ec) / "scripts");
  for (const auto& root : roots)
    if (fs::exists(root / name)) return (root / name).string();
  return "";
}

bool python_has(const std::string& check) {
  return std::system(("python3 -c '" + check + "' >/dev/null 2>&1").c_str()) == 0;
}

std::string shell_quote(const std::string& text) { return "'" + text + "'"; }

}  // namespace

void run_torch_if_asked(const BenchOptions& options, const BenchPlan& plan, BenchRun& run, Progress& progress) {
  if (!plan.providers.count(Provider::Torch)) return;
  const std::string script = find_script(options.torch_script, "torch_bench.py");
  std::string missing;
  if (script.empty()) missing = "scripts/torch_bench.py not found (set CL2_SCRIPTS_DIR)";
  else if (!python_has("import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"))
    missing = "python3 with a CUDA-enabled PyTorch is not available";
  if (!missing.empty()) {
    if (plan.torch_explicit) throw UserError(fmt::format("--providers torch: {}; drop torch from --providers", missing));
    progress.line(fmt::format("bench: no torch.matmul column: {}", missing));
    return;
  }
  fs::create_directories(options.out_dir);
  const std::string csv = (fs::path(options.out_dir) / "torch.csv").string();
  const std::string command = fmt::format(
      "python3 {} --shapes {} --layout {} --accum {} --mode {} --interval-ms {} --samples {} --out {}{}",
      shell_quote(script), shell_quote(options.shapes_path), to_string(options.defaults.layout),
      to_string(options.defaults.accum), options.mode, join(options.intervals_ms), options.server_samples,
      shell_quote(csv), " --l2 " + std::string(to_string(options.defaults.l2)));
  progress.line("bench: " + command);
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error(fmt::format("the torch.matmul benchmark failed: {}", command));
  merge_torch_results(run, csv);
}

void plot_if_possible(const BenchOptions& options, Progress& progress) {
  const std::string script = find_script(options.plot_script, "plot_bench.py");
  if (script.empty() || !python_has("import matplotlib")) {
    progress.line("bench: no plots (needs python3 with matplotlib and scripts/plot_bench.py)");
    return;
  }
  const std::string command = fmt::format("python3 {} {}", shell_quote(script), shell_quote(options.out_dir));
  if (std::system(command.c_str()) != 0) progress.line("bench: plotting failed: " + command);
}

}  // namespace cl2
