#pragma once
// Where a tuning run's time went, by stage: compiling, setting up each shape on the GPU, timing
// the libraries, racing and screening candidates, the final rounds. A run that must get shorter
// (grid-1000 in 15 minutes) is shortened where this says the time goes. Safe to share between the
// threads of a run on several GPUs; their worker times add up.
#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "db/records.hpp"
#include "runner/protocol.hpp"

namespace cl2 {

enum class RunStage { Compiling, Setup, Libraries, Racing, Screening, Final, kCount };

// The stage a worker request belongs to (a race round is a trial under the race rule).
RunStage stage_of(const WorkerRequest& request);
// What a request counts for in its stage: its candidates for a trial (several may be timed side
// by side in one), else 1.
std::size_t units_of(const WorkerRequest& request);

class StageTimes {
 public:
  void add(RunStage stage, double seconds, std::size_t units = 1);
  // One line: each stage's seconds and share of `wall_seconds`, candidates counted where the
  // stage is per candidate, and what none of the stages holds (database, planning, the tuner's
  // own work).
  // `workers`: GPUs whose worker times were added (their sum may exceed the wall time).
  std::string summary(double wall_seconds, std::size_t workers) const;
  // The stages that ran, for the run's row in the database (TuningDb::set_run_stages).
  std::vector<RunStageTime> recorded() const;

 private:
  mutable std::mutex mutex_;
  std::array<double, std::size_t(RunStage::kCount)> seconds_{};
  std::array<std::size_t, std::size_t(RunStage::kCount)> count_{};
};

}  // namespace cl2
