#include <fmt/format.h>

#include "bench/bench_options.hpp"
#include "cli/commands.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/errors.hpp"

namespace cl2 {

CommandRunner add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto intervals = std::make_shared<std::string>("10,50,100");
  auto providers = std::make_shared<std::string>("all");
  auto layout = std::make_shared<std::string>("tn");
  auto accum = std::make_shared<std::string>("f32");
  auto l2 = std::make_shared<std::string>("warm");
  auto cold = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "bench", "Measure the database's winners and the runtime library's dispatch against torch.matmul, "
               "cuBLAS and cuBLASLt, offline (back to back) and server (after idle gaps), and write CSV, "
               "Markdown and plots");
  cmd->add_option("--shapes", o->shapes_path, "Shapes file (as for tune)")->required();
  cmd->add_option("--db", o->db_path, "Tuning database with this GPU's winners")->capture_default_str();
  cmd->add_option("--runtime-db", o->runtime_db_path,
                  "Tuning database or bundle folder that provider runtime (libcl2's dispatch: the exact "
                  "shape's winner, else that of a nearby tuned shape the cost model ranks fastest at this "
                  "shape, else cuBLASLt) dispatches from; default "
                  "--db. Give a database that lacks the shapes to measure nearest-shape dispatch against "
                  "their own winners in --db");
  cmd->add_option("--mode", o->mode, "offline, server or both")->capture_default_str();
  cmd->add_option("--interval-ms", *intervals, "Server-mode idle gaps in ms, comma-separated")
      ->capture_default_str();
  cmd->add_option("--providers", *providers,
                  "Comma-separated: ours, runtime, cublas_nn, cublas_tn, cublaslt_heuristic, "
                  "cublaslt_autotune, torch, or all (torch is skipped with a note where PyTorch is missing)")
      ->capture_default_str();
  cmd->add_option("--l2", *l2, std::string(kL2PolicyHelp) + "; the winners of that policy are benched")
      ->capture_default_str();
  cmd->add_flag("--cold-l2", *cold, "The same as --l2 flush");
  cmd->add_option("--out", o->out_dir, "Folder for bench.csv, speedups.csv, summary.md, run.json, plots")
      ->capture_default_str();
  cmd->add_option("--server-samples", o->server_samples, "Calls per provider and interval in server mode")
      ->capture_default_str();
  cmd->add_option("--layout", *layout, "Default layout for shapes without one")->capture_default_str();
  cmd->add_option("--accum", *accum, "Default accumulator for shapes without one")->capture_default_str();
  cmd->add_option("--space-file", o->space_files, "Space file of a family tuned with --space-file");
  cmd->add_option("--device", o->device, "GPU index")->capture_default_str();
  cmd->add_option("--cache-dir", o->cache_dir, "Cubin cache (default as for tune)");
  cmd->add_flag("--trace-kernels", o->trace_kernels,
                "After each shape's offline GPU timing, launch every call once more as one timed sample "
                "(the same back-to-back launches) with CUPTI's kernel records on, and report its kernels' "
                "time per call against the event time per call (trace.md, trace.json). Needs --mode "
                "offline or both. Off by default: with CUPTI loaded, our small kernels ran up to 0.7 us "
                "per call slower on the H200");
  return [o, intervals, providers, layout, accum, l2, cold] {
    o->defaults = {parse_layout(*layout, "--layout"), parse_accum(*accum, "--accum"),
                   *cold ? L2Policy::Flush : parse_l2_policy(*l2, "--l2")};
    o->intervals_ms.clear();
    std::string rest = *intervals + ",";
    for (std::size_t comma; (comma = rest.find(',')) != std::string::npos; rest.erase(0, comma + 1)) {
      const std::string item = rest.substr(0, comma);
      try {
        o->intervals_ms.push_back(std::stoi(item));
      } catch (const std::exception&) {
        throw UserError(fmt::format("--interval-ms {}: '{}' is not a whole number of milliseconds", *intervals, item));
      }
    }
    o->providers = split_list(*providers);
    if (o->cache_dir.empty()) o->cache_dir = default_cache_dir();
    return run_bench(*o);
  };
}

}  // namespace cl2
