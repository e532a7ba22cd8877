#pragma once
// Everything `cuda-l2-tune tune` is told on its command line.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/shape_file.hpp"
#include "tune/shards.hpp"
#include "tune/strategy.hpp"

namespace cl2 {

struct TuneOptions {
  std::string shapes_path;
  std::string db_path = "db/tuning.sqlite";
  std::vector<std::string> families = {"all"};
  std::vector<std::string> space_files;  // extra families from space files on disk
  ShapeDefaults defaults;
  std::map<std::string, std::int64_t> pins;  // --pin: parameters fixed in every family that has them
  ShardSpec shard;                           // --shard I/N: this machine's part of the shapes
  Strategy strategy = Strategy::Model;   // tune/strategy.hpp
  std::size_t max_candidates = kDefaultMaxCandidates;  // per shape, after ordering by the cost model
  std::size_t seeds = 0;                 // of those, winners of the nearest tuned shapes (search/seeds.hpp)
  std::size_t finalists = 3;             // settled side by side in the final round (shape_tuner.cpp)
  std::size_t side_by_side = 8;          // candidates timed in one measurement beside one library call
  double budget_seconds = 0;             // 0 = no limit
  bool compile_only = false;
  std::string arch;                      // compile-only target when no GPU decides it
  std::vector<int> devices = {0};        // one worker per GPU; shapes go to whichever is free
  std::string cache_dir;
  double watchdog_seconds = 30;
  bool retune = false;                   // redo shapes that already have a winner
  bool fake_gpu = false;                 // tests: a worker that makes numbers up
  bool trace_kernels = false;            // CUPTI kernel records of every timed call (off: CUPTI not loaded)
  bool counters = false;                 // CUPTI counters of each winner and the library's call, stored
  bool verbose = false;
  std::string command_line;              // recorded with the run

  SearchPlan search() const { return search_plan(strategy, max_candidates, seeds); }
};

// Exit status: 0 all shapes tuned; 1 some shape got no verified winner; UserError for bad input.
int run_tune(const TuneOptions& options);
int run_compile_only(const TuneOptions& options);

}  // namespace cl2
