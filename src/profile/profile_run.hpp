#pragma once
// `cuda-l2-tune profile M N K`: the database's winner for the shape and the library's fastest call
// (cuBLASLt-autotune's algorithm as tune recorded it), each launched once under CUPTI's Range
// Profiler in the GPU worker, printed side by side with their limiters and stored in the database.
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace cl2 {

struct ProfileOptions {
  Problem problem;
  std::string db_path = "db/tuning.sqlite";
  std::vector<std::string> space_files;  // families tuned with --space-file
  int device = 0;
  std::string cache_dir;
  bool fake_gpu = false;  // tests: a worker that makes its numbers up
  std::string command_line;
};

// Exit status 0 with the report on stdout. UserError (one line with the fix) where the shape has
// no winner, no GPU is there, or the counters could not be measured (no CUPTI, no permission);
// then nothing is written to the database.
int run_profile(const ProfileOptions& options);

}  // namespace cl2
