#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/errors.hpp"
#include "tune/tune_options.hpp"

namespace cl2 {

namespace {

// --pin values: each "NAME=VALUE[,NAME=VALUE...]" with an integer VALUE.
std::map<std::string, std::int64_t> parse_pins(const std::vector<std::string>& values) {
  std::map<std::string, std::int64_t> pins;
  for (const auto& value : values)
    for (const auto& item : split_list(value)) {
      const std::size_t equals = item.find('=');
      std::size_t used = 0;
      std::int64_t number = 0;
      try {
        if (equals != std::string::npos) number = std::stoll(item.substr(equals + 1), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (equals == 0 || equals == std::string::npos || used == 0 || equals + 1 + used != item.size())
        throw UserError(fmt::format("--pin {}: expected NAME=VALUE with an integer value, e.g. --pin BM=128,SPLIT_K=2",
                                    item));
      pins[item.substr(0, equals)] = number;
    }
  return pins;
}

// --devices: distinct GPU indices, "0" or "0,1,3".
std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> devices;
  for (const auto& item : split_list(text)) {
    std::size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || index < 0 ||
        std::find(devices.begin(), devices.end(), index) != devices.end())
      throw UserError(fmt::format("--devices {}: expected distinct GPU indices separated by commas, e.g. 0,1", text));
    devices.push_back(index);
  }
  return devices;
}

}  // namespace

CommandRunner add_tune_command(CLI::App& app) {
  auto options = std::make_shared<TuneOptions>();
  auto layout = std::make_shared<std::string>("tn");
  auto accum = std::make_shared<std::string>("f32");
  auto l2 = std::make_shared<std::string>("warm");
  auto family = std::make_shared<std::string>("all");
  CLI::App* tune = app.add_subcommand(
      "tune", "Tune every shape of a shapes file and store the trials and winners in the database.");
  tune->add_option("--shapes", options->shapes_path,
                   "Shapes file: a JSON list of {\"m\":..,\"n\":..,\"k\":..} (optional \"layout\", "
                   "\"accum\", \"l2\") or [m, n, k] triples")
      ->required();
  tune->add_option("--db", options->db_path, "Tuning database (created if missing)")
      ->capture_default_str();
  tune->add_option("--layout", *layout,
                   "Default B layout for shapes that do not give one: tn (B column-major, weights) "
                   "or nn (B row-major)")
      ->capture_default_str();
  tune->add_option("--accum", *accum, "Default accumulator: f32 or f16")->capture_default_str();
  tune->add_option("--l2", *l2, std::string(kL2PolicyHelp) + "; the default for shapes that do not give one")
      ->capture_default_str();
  tune->add_option("--family", *family,
                   "Template families, comma-separated (sm80, sm90) or 'all'; families that do not "
                   "run on the GPU are skipped")
      ->capture_default_str();
  tune->add_option("--space-file", options->space_files,
                   "Extra family from a space file (its template path is relative to it); repeatable");
  auto pins = std::make_shared<std::vector<std::string>>();
  tune->add_option("--pin", *pins,
                   "Fix parameters to one value each, NAME=VALUE[,NAME=VALUE...] (repeatable), in every "
                   "selected family that has them; the family's planning rules are then ignored, so "
                   "exactly that variant runs on any shape its correctness rules allow (e.g. --pin "
                   "BM=128,BN=128,SPLIT_K=2)");
  auto shard = std::make_shared<std::string>("0/1");
  tune->add_option("--shard", *shard,
                   "Tune part I of N of the shapes (I counts from 0), e.g. one task of a job array; the "
                   "parts are balanced by estimated tuning time and the same on every machine, and "
                   "`merge` joins their databases")
      ->capture_default_str();
  auto strategy = std::make_shared<std::string>("model");
  tune->add_option("--strategy", *strategy,
                   "How each shape's candidates are chosen and timed. model: the cost models' cheapest "
                   "--max-candidates, each screened; race: 4x as many, each timed briefly, the best eighth "
                   "screened (successive halving); seeded: model, with the winners of the nearest tuned shapes "
                   "first (--seeds, or a quarter of the slots); random: --max-candidates drawn at random from "
                   "every planned variant (what the cost model is worth); exhaustive: every planned variant (refused "
                   "where a shape plans more than 4096). "
                   "Every strategy verifies each candidate before timing it (a race's brief round on the first "
                   "input set only) and settles the close ones under the final rule (--finalists), where each "
                   "is verified in full again")
      ->capture_default_str();
  tune->add_option("--max-candidates", options->max_candidates,
                   "Candidates per shape, cheapest first by the families' cost models (0 = all); a variant that "
                   "does not compile clean (spills, ptxas warnings) gives its slot to the next. A family may "
                   "add twins beyond them (its space file's \"twin\"): under --l2 rotate sm90 times each of "
                   "its first 24 beside the same variant without programmatic dependent launch")
      ->capture_default_str();
  tune->add_option("--finalists", options->finalists,
                   "The best candidates (those within 4% of the best screening time, at most this many) "
                   "timed again side by side with each other and the libraries under the final rule; the "
                   "fastest there wins (1 = the best screening time wins)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  tune->add_option("--side-by-side", options->side_by_side,
                   "Candidates raced or screened in one measurement: each verified alone, then all timed in "
                   "shuffled rounds beside one call of the library, each until its ratio to that call is "
                   "known (1 = one candidate at a time, each beside its own library call; 8 cost 26-35% less "
                   "per candidate on an H100 with the same winners, db/results/h100-side-by-side/)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  tune->add_option("--seeds", options->seeds,
                   "Of each shape's candidates, this many are the winners the database holds for the "
                   "nearest tuned shapes of the same GPU, layout and accumulator (distance in log M, N, K), "
                   "where valid for the shape; off by default until measured against the model's choice")
      ->capture_default_str();
  tune->add_option("--budget-seconds", options->budget_seconds,
                   "Stop trying new candidates when the run has used this much time (0 = no limit); "
                   "the time left is shared equally by the shapes still to tune")
      ->capture_default_str();
  tune->add_flag("--compile-only", options->compile_only,
                 "Only generate and compile the candidates (no GPU needed, nothing written to the "
                 "database); reports how many compiled");
  tune->add_option("--arch", options->arch,
                   "With --compile-only: target architecture (sm_80, sm_86, sm_89, sm_90a); default "
                   "the GPU's, or sm_90a without one");
  auto devices = std::make_shared<std::string>("0");
  tune->add_option("--device,--devices", *devices,
                   "GPU index, or several comma-separated (0,1,2,3): one worker per GPU of this host, "
                   "each taking the next shape when it is free, all writing one database")
      ->capture_default_str();
  tune->add_option("--cache-dir", options->cache_dir,
                   "Cubin cache (default $CUDA_L2_TUNE_CACHE or ~/.cache/cuda-l2-tune)");
  tune->add_option("--watchdog-seconds", options->watchdog_seconds,
                   "A candidate that does not finish in this time is recorded as hung and its worker "
                   "restarted (a request of several side by side gets this and each further "
                   "candidate's measurement time and a second; if it hangs, each is tried alone)")
      ->capture_default_str();
  tune->add_flag("--retune", options->retune, "Measure the winner again for shapes already tuned");
  tune->add_flag("--verbose", options->verbose, "Print every candidate's result");
  tune->add_flag("--trace-kernels", options->trace_kernels,
                 "Launch every timed call once more as one timed sample (the same back-to-back launches) "
                 "with CUPTI's kernel records on: store the kernels it ran (names, streams, durations; shown "
                 "by show and the exports) and fail a candidate whose event time misses work. Off by default: in a run with it on, our small kernels ran up to "
                 "0.7 us per call slower on the H200");
  tune->add_flag("--counters", options->counters,
                 "After each shape's winner is timed, launch it and the library's fastest call once more under "
                 "CUPTI's Range Profiler and store their counters (as `profile` shows them); where CUPTI is "
                 "missing or profiling is not permitted, tuning goes on and the counters are recorded as absent");
  tune->add_flag("--fake-gpu", options->fake_gpu,
                 "Testing aid: a worker that invents its results instead of using a GPU")
      ->group("");  // hidden from --help
  return [options, layout, accum, l2, family, pins, shard, devices, strategy] {
    options->strategy = parse_strategy(*strategy);
    options->defaults.layout = parse_layout(*layout, "--layout");
    options->defaults.accum = parse_accum(*accum, "--accum");
    options->defaults.l2 = parse_l2_policy(*l2, "--l2");
    options->families = split_list(*family);
    options->pins = parse_pins(*pins);
    options->shard = parse_shard(*shard);
    options->devices = parse_devices(*devices);
    if (options->cache_dir.empty()) options->cache_dir = default_cache_dir();
    options->command_line = fmt::format("tune --shapes {} --db {} --strategy {}", options->shapes_path,
                                        options->db_path, to_string(options->strategy));
    return run_tune(*options);
  };
}

}  // namespace cl2
