#pragma once
// A developer's record of every interleaved measurement, for choosing stopping rules from data
// rather than guesses: with CL2_TIMING_LOG=FILE in the environment (tune's workers inherit it),
// each measurement appends one JSON line: the calls, the rule, why it stopped, the wall time of
// its setup (the launches that warm up and size the calls, and graph building) and in all, and per call its graph size, the
// samples' median and spread, and the spread of its per-round ratio to the first call (noise the
// calls of a round share, such as the clock, cancels there). Each trial that verifies adds a line
// of its steps' wall times (TrialSteps): what a candidate costs beside its measurement.
#include <string>
#include <vector>

#include "gpu/stop_rule.hpp"

namespace cl2 {

struct MeasurementRecord {
  std::vector<std::string> calls;
  StopRule rule;
  StopReason reason = StopReason::GoOn;
  double setup_seconds = 0, wall_seconds = 0;
  std::vector<int> copies;                    // launches per sample, per call
  std::vector<std::vector<double>> samples;   // per call, per round, us per launch
  double warm_up_seconds = 0;  // of setup_seconds, the launches that warm up and size the calls (the rest builds their graphs)
};

// A trial's steps in the worker, each one's wall seconds: loading the module and setting up its
// launch, verifying it, the measurement beside the library call (an equal share of it where
// several candidates were timed in one; the measurement's own line, just before, has its details),
// verifying again after it, and tracing its kernels (with --trace-kernels).
struct TrialSteps {
  double prepare_seconds = 0, verify_seconds = 0, measure_seconds = 0, verify_again_seconds = 0,
         trace_seconds = 0;
};

// The file CL2_TIMING_LOG names, or "" when unset: read once per process.
const std::string& timing_log_path();

// Appends `record` as one line to `path`; a file that cannot be opened is skipped quietly (the
// log is a diagnostic and must never fail a measurement).
void append_measurement(const std::string& path, const MeasurementRecord& record);
void append_trial_steps(const std::string& path, const TrialSteps& steps);

}  // namespace cl2
