#pragma once
// State shared by the stages of one tuning run: options, database, worker, device, progress.
#include <memory>
#include <optional>
#include <vector>

#include "db/tuning_db.hpp"
#include "runner/worker_client.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
#include "tune/candidate_build.hpp"
#include "tune/progress.hpp"
#include "tune/stage_times.hpp"
#include "tune/stored_calibration.hpp"
#include "tune/tune_options.hpp"

namespace cl2 {

struct ShapeOutcome {
  bool skipped = false;      // already tuned by an earlier run
  bool has_winner = false;
  double winner_us = 0;
  double speedup_vs_cublas_max = 0;
  double speedup_vs_cublaslt_autotune = 0;
  std::string winner_label;
  int timed = 0, failed = 0, reused = 0;
  std::string failure;       // why no winner
};

// One GPU's share of a run: with --devices, one session per GPU, each with its own worker and
// database connection, all writing the run's one database and reporting to one progress.
struct TuneSession {
  explicit TuneSession(const TuneOptions& run_options) : options(run_options) {}

  const TuneOptions& options;
  std::unique_ptr<TuningDb> db;
  std::unique_ptr<WorkerClient> worker;
  std::unique_ptr<KernelCompiler> compiler;
  DeviceInfo device;
  DeviceLimits limits;
  CalibratedFamilies calibrated;  // the families as they plan on this GPU (the candidates point into it)
  std::int64_t device_id = 0;
  std::int64_t run_id = 0;
  std::shared_ptr<Progress> progress;
  std::shared_ptr<StageTimes> stages;     // the run's, shared by its sessions
  std::optional<Problem> worker_problem;  // the problem the live worker holds, with baselines
  std::vector<BaselineRecord> baselines;  // ... and those baselines, as stored
  bool trace_absence_told = false;        // the user has been told why calls are not traced
  bool counters_absence_told = false;     // ... and why --counters measured none
};

// Tunes one problem: baselines, each pending candidate verified and timed, the winner re-timed
// against the libraries and stored. Candidates that already have a trial are not run again.
ShapeOutcome tune_problem(TuneSession& session, const Problem& problem,
                          const std::vector<BuiltCandidate>& candidates, double shape_budget_seconds);

// Sends `request` to the worker and counts its time to the request's stage; on a lost worker,
// records nothing else and returns the reply as is.
WorkerReply ask_worker(TuneSession& session, const WorkerRequest& request, double timeout_seconds);

}  // namespace cl2
