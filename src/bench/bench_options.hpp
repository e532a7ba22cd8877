#pragma once
// What `cuda-l2-tune bench` is told on its command line.
#include <string>
#include <vector>

#include "core/shape_file.hpp"

namespace cl2 {

struct BenchOptions {
  std::string shapes_path;
  std::string db_path = "db/tuning.sqlite";
  std::string runtime_db_path;                // provider runtime's database or bundle; "" = db_path
  std::string mode = "both";                  // offline | server | both
  std::vector<int> intervals_ms = {10, 50, 100};
  std::vector<std::string> providers = {"all"};
  std::string out_dir = "bench-out";
  int device = 0;
  int server_samples = 5;
  std::string cache_dir;
  std::vector<std::string> space_files;       // families of tuned kernels outside the build
  bool trace_kernels = false;                 // CUPTI's kernels of each offline-timed call (off: CUPTI not loaded)
  ShapeDefaults defaults;
  std::string torch_script;                   // scripts/torch_bench.py; "" = find it
  std::string plot_script;                    // scripts/plot_bench.py; "" = find it
};

int run_bench(const BenchOptions& options);

}  // namespace cl2
