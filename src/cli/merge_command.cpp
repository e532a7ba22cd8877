#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

namespace {

namespace fs = std::filesystem;

// A database's side files: a stale write-ahead log beside a file that is replaced would be
// replayed into the new one.
void remove_side_files(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"-wal", "-shm", "-journal"}) fs::remove(path + suffix, ignored);
}

void remove_database(const std::string& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
  remove_side_files(path);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return fs::exists(a, error) && fs::exists(b, error) && fs::equivalent(a, b, error);
}

}  // namespace

CommandRunner add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge tuning databases (the shards of `tune --shard`, runs on other machines) into one: every "
      "trial kept once, each library baseline at its latest measurement, and per device and shape "
      "the faster winner. Merging the same databases again changes nothing.");
  cmd->add_option("inputs", o->inputs, "Tuning databases to merge")->required();
  cmd->add_option("--output,-o", o->output,
                  "The merged database: created, or if it exists, merged into (its rows are kept)")
      ->required();
  return [o] {
    // Every input is checked (ours, intact, this schema) before anything is written.
    for (const auto& input : o->inputs) {
      if (same_file(input, o->output))
        throw UserError(fmt::format("{}: is the --output database itself; its rows are kept anyway, "
                                    "leave it out of the inputs",
                                    input));
      TuningDb::open(input, DbMode::ReadAsIs);
    }
    const bool output_exists = fs::exists(o->output);
    if (output_exists) TuningDb::open(o->output, DbMode::ReadAsIs);
    // Built beside the output and renamed over it at the end: a failure leaves the output as it was.
    const std::string building = o->output + ".merging";
    remove_database(building);
    MergeCounts total;
    try {
      auto merged = TuningDb::open(building, DbMode::ReadWrite);
      if (output_exists) merged->merge_from(o->output);
      for (const auto& input : o->inputs) {
        const MergeCounts c = merged->merge_from(input);
        std::fprintf(stderr, "%s: %d trials, %d kernels, %d devices, %d baselines, %d winners added or updated\n",
                     input.c_str(), c.trials, c.kernels, c.devices, c.baselines, c.winners);
        total.trials += c.trials;
        total.winners += c.winners;
      }
      merged.reset();  // closes the file, folding its write-ahead log into it
      remove_side_files(o->output);
      fs::rename(building, o->output);
    } catch (...) {
      remove_database(building);
      throw;
    }
    std::fprintf(stderr, "merged %zu databases into %s: %d trials and %d winners added or updated\n",
                 o->inputs.size(), o->output.c_str(), total.trials, total.winners);
    return 0;
  };
}

}  // namespace cl2
