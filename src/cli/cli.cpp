#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/build_stamp.hpp"
#include "core/errors.hpp"

namespace cl2 {

namespace {

// `cuda-l2-tune --shapes f.json` is short for `cuda-l2-tune tune --shapes f.json`.
std::vector<std::string> with_default_subcommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0].rfind("-", 0) == 0 && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version")
    args.insert(args.begin(), "tune");
  return args;
}

}  // namespace

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string rest = text;
  for (std::size_t comma; (comma = rest.find(',')) != std::string::npos; rest.erase(0, comma + 1))
    items.push_back(rest.substr(0, comma));
  items.push_back(rest);
  return items;
}

int run_cli(int argc, char** argv) {
  CLI::App app{
      "cuda-l2-tune: an offline autotuner for half-precision GEMM on NVIDIA GPUs.\n"
      "It enumerates kernel variants of its template families for each shape of a shapes file,\n"
      "compiles them with NVRTC, verifies each against an fp32-accumulating reference, times the\n"
      "survivors side by side with cuBLAS and cuBLASLt, and keeps every trial and the winners in a\n"
      "SQLite tuning database, from which `export` writes the best-kernel table.\n\n"
      "  cuda-l2-tune --shapes configs/shapes/quickstart.json    (same as `tune --shapes ...`)\n"
      "  cuda-l2-tune export --format md\n"
      "  cuda-l2-tune show 4096 4096 4096\n"
      "  cuda-l2-tune bench --shapes configs/shapes/grid-125.json --mode both\n"
      "  cuda-l2-tune tune --shapes grid.json --shard 0/4 --db shard-0.sqlite   (one of 4 machines)\n"
      "  cuda-l2-tune merge shard-*.sqlite -o all.sqlite\n"
      "  cuda-l2-tune compare last-night.json tonight.sqlite --junit junit.xml\n"
      "  cuda-l2-tune profile 1024 1024 12288   (counters of the winner and the library's kernel)\n"
      "  cuda-l2-tune calibrate --db trials.sqlite   (fit the cost model's factors to measured trials)\n",
      "cuda-l2-tune"};
  app.set_version_flag("--version", std::string("cuda-l2-tune 0.1 (commit ") + build_commit() + ")");
  app.require_subcommand(1);
  std::map<CLI::App*, CommandRunner> runners;
  for (auto adder : {add_tune_command, add_export_command, add_show_command, add_bench_command, add_merge_command,
                     add_compare_command, add_profile_command, add_calibrate_command, add_worker_command}) {
    const std::size_t before = app.get_subcommands({}).size();
    CommandRunner runner = adder(app);
    runners[app.get_subcommands({})[before]] = std::move(runner);
  }
  std::vector<std::string> args = with_default_subcommand(argc, argv);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last-first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    // --help and --version print what was asked; a bad option or value is a user error like any
    // other: one line that names it, and exit status 2.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "cuda-l2-tune: %s (see --help)\n", e.what());
    return 2;
  }
  try {
    for (auto& [sub, runner] : runners)
      if (sub->parsed()) return runner();
  } catch (const UserError& e) {
    std::fprintf(stderr, "cuda-l2-tune: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda-l2-tune: internal error: %s\n", e.what());
    return 1;
  }
  return 1;
}

}  // namespace cl2
