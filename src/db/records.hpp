#pragma once
// Rows of the tuning database (db/schema.sql), as the driver produces and the exporters read them.
// Times are GPU microseconds per call (CUDA events, median of the samples); spread_pct is the
// relative spread of the samples (100 * stdev / mean). NaN marks "not measured".
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/call_counters.hpp"
#include "core/call_trace.hpp"
#include "core/device_info.hpp"
#include "core/lt_algo_config.hpp"
#include "core/problem.hpp"
#include "core/provider.hpp"

namespace cl2 {

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

enum class TrialStatus {
  Ok,             // verified, then timed
  VerifyFailed,   // max_diff above tolerance (or NaN/Inf): can never win
  CompileFailed,  // NVRTC error
  Rejected,       // compiled but disqualified before timing (spills, ptxas warnings, no fit)
  LaunchFailed,   // the launch returned an error (too many resources, bad geometry)
  Fault,          // the kernel crashed the worker (illegal address, ...)
  Timeout,        // the watchdog killed the worker
};
std::string_view to_string(TrialStatus status);
TrialStatus parse_trial_status(std::string_view text);  // throws std::invalid_argument

struct KernelRecord {
  std::int64_t id = 0;
  std::string family;
  std::string config_json;  // KernelConfig::to_json(), runtime params included
  std::string source_hash;  // hash of the generated source
  std::string arch;         // "sm_90a"
  bool compiled = false;
  int registers = -1;
  int stack_bytes = 0;
  int spill_bytes = 0;      // stores + loads
  int smem_static_bytes = 0;
  std::string compile_log;  // kept for failures and warnings; empty otherwise
};

struct TrialRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::int64_t device_id = 0;
  std::int64_t kernel_id = 0;
  Problem problem;
  TrialStatus status = TrialStatus::Ok;
  std::string reason;        // why it failed or was rejected; empty when Ok
  double max_diff = kNotMeasured;
  double tolerance = kNotMeasured;
  double time_us = kNotMeasured;
  double spread_pct = kNotMeasured;
  int samples = 0;
  double reference_us = kNotMeasured;  // cuBLASLt-autotune's best algo, timed interleaved with it
  // The kernels one pass of the candidate ran; nullopt where it was not traced (it failed before
  // timing, or was measured before schema 3). One that fails timing_flag is VerifyFailed, with
  // the flag as its reason.
  std::optional<CallTrace> trace;
  std::string created_at;              // UTC, ISO 8601; filled by the database
};

// Library timings for a problem. Providers: cuBLAS NN and TN, cuBLASLt heuristic and autotune
// (best of every algo the heuristic returned; `detail` says which and of how many).
struct BaselineRecord {
  std::int64_t device_id = 0;
  std::int64_t run_id = 0;
  Problem problem;
  Provider provider = Provider::CublasltAutotune;
  double time_us = kNotMeasured;
  double spread_pct = kNotMeasured;
  int samples = 0;
  double max_diff = kNotMeasured;
  std::string detail;
  std::optional<LtAlgoConfig> lt_algo;  // cuBLASLt providers: the algorithm timed, where known
  std::optional<CallTrace> trace;       // the kernels one pass of the call ran; nullopt before schema 3
  // timing_flag's verdict on the time, "" when it holds. A flagged library time is kept (it is
  // what the library gives its users) and shown with the flag.
  std::string trace_flag;
  std::string measured_at;
};

// Hardware counters of one call of a problem on a device (`profile`, `tune --counters`): our kernel
// or the library's call, the latest measurement per provider.
struct CountersRecord {
  std::int64_t device_id = 0;
  std::int64_t run_id = 0;
  Problem problem;
  Provider provider = Provider::Ours;
  std::int64_t kernel_id = 0;  // ours: the kernel measured; 0 for a library call
  std::string detail;          // a library's: the algorithm it ran and how it was chosen
  CallCounters counters;       // absent, with the reason, where CUPTI could not profile
  std::string measured_at;
};

// Where some of a tuning run's time went (tune/stage_times.hpp): a stage's wall seconds and the
// requests it served (candidates, for racing and screening).
struct RunStageTime {
  std::string stage;
  double seconds = 0;
  std::int64_t count = 0;
  bool operator==(const RunStageTime&) const = default;
};

// One invocation of a measuring command, as the runs table keeps it.
struct RunRecord {
  std::int64_t id = 0;
  std::string started_at, finished_at;  // finished_at "" while running (or killed)
  double seconds = kNotMeasured;        // finished - started; NaN while running
  std::string command_line, shapes_file, status;
  std::vector<RunStageTime> stages;     // empty before schema 8 and for commands that do not tune
};

// A family's cost-model calibration fitted to this database's trials on one GPU model
// (`calibrate --store`): each factor keyed by its rule as the space file writes it.
struct CalibrationRecord {
  std::string device_name;
  std::string family;
  std::vector<std::pair<std::string, double>> factors;
  std::optional<double> scale;
  int trials = 0;              // the verified trials fitted
  std::string fitted_at;       // filled by the database
};

// The best verified kernel of a problem on a device, re-timed at the end of its shape's tuning
// interleaved with the libraries, so the times in one row come from the same rounds.
struct WinnerRecord {
  std::int64_t device_id = 0;
  std::int64_t run_id = 0;
  Problem problem;
  std::int64_t kernel_id = 0;
  std::int64_t trial_id = 0;
  double time_us = kNotMeasured;
  double spread_pct = kNotMeasured;
  double max_diff = kNotMeasured;
  double cublas_nn_us = kNotMeasured;
  double cublas_tn_us = kNotMeasured;
  double cublaslt_heuristic_us = kNotMeasured;
  double cublaslt_autotune_us = kNotMeasured;
  int candidates_timed = 0;
  double sm_clock_mhz = kNotMeasured;  // median SM clock of its final round (NVML); NaN where not sampled
  int throttled_rounds = 0;            // rounds of it discarded because the GPU was throttled
  std::string measured_at;

  double cublas_max_us() const { return std::fmin(cublas_nn_us, cublas_tn_us); }  // the faster
  double speedup_vs_cublas_max() const { return cublas_max_us() / time_us; }
  double speedup_vs_cublaslt_autotune() const { return cublaslt_autotune_us / time_us; }
};

// One line of the best-kernel table: a winner with its device and kernel, and the cuBLASLt
// algorithms behind its cuBLASLt times. Those come from the baselines its own run measured (the
// final round times the algorithms the baselines chose); nullopt where that run recorded none
// (before schema 2, or cuBLASLt did not say) or a merge kept another run's baseline.
struct WinnerRow {
  DeviceInfo device;
  WinnerRecord winner;
  KernelRecord kernel;
  std::optional<LtAlgoConfig> cublaslt_heuristic_algo;
  std::optional<LtAlgoConfig> cublaslt_autotune_algo;
  // Per library baseline of that run, the names of the kernels its call ran (CallTrace's
  // kernel_names); no entry where it was not traced.
  std::map<Provider, std::vector<std::string>> library_kernels;

  // The field for Provider::CublasltHeuristic or CublasltAutotune; nullopt for any other.
  std::optional<LtAlgoConfig> lt_algo(Provider provider) const;
  // The kernel names of `provider`'s baseline; empty where it was not traced.
  std::vector<std::string> library_kernels_of(Provider provider) const;
  bool has_lt_algo() const { return cublaslt_heuristic_algo || cublaslt_autotune_algo; }
};

// The providers that have an LtAlgoConfig, in report order.
inline constexpr Provider kLtAlgoProviders[] = {Provider::CublasltHeuristic, Provider::CublasltAutotune};
// The library baselines a winner's row has times (and kernels) of, in report order.
inline constexpr Provider kBaselineProviders[] = {Provider::CublasNn, Provider::CublasTn, Provider::CublasltHeuristic,
                                                  Provider::CublasltAutotune};

}  // namespace cl2
