#pragma once
// Messages between the tuning parent and its GPU worker process: one JSON object per line on the
// worker's stdin (requests) and on a private copy of its stdout (replies). A request is one of the
// structs below, told apart on the wire by its "op": hello, problem, baselines, trial, final,
// profile, quit.
// Every reply has "ok": true with the request's own reply, or false with a FailureReply.
// Both sides convert only through the functions here, so the two cannot disagree on a field.
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/call_counters.hpp"
#include "core/call_trace.hpp"
#include "core/device_info.hpp"
#include "core/kernel_config.hpp"
#include "core/lt_algo_config.hpp"
#include "core/problem.hpp"
#include "core/provider.hpp"
#include "db/records.hpp"
#include "gpu/timing.hpp"
#include "search/candidates.hpp"

namespace cl2 {

// "hello": which device the worker holds.
struct HelloRequest {
  bool operator==(const HelloRequest&) const = default;
};

// "problem": allocate the problem's inputs and compute their references (forgets the last one).
struct ProblemRequest {
  Problem problem;
  bool operator==(const ProblemRequest&) const = default;
};

// "baselines": choose cuBLASLt's algorithms (up to max_algorithms screened under `screen`), then
// time every library call side by side under `timing`.
struct BaselinesRequest {
  int max_algorithms = kLtAutotuneAlgorithms;
  StopRule screen;
  StopRule timing;
  bool operator==(const BaselinesRequest&) const = default;
};

// A compiled candidate and how long to time it.
struct KernelRun {
  std::string cubin_path;
  LaunchGeometry launch;
  KernelConfig config;  // for the logs and the fake worker; the cubin is what runs
  StopRule stop;
  bool operator==(const KernelRun&) const = default;
};

// "trial": verify each candidate, then time those that passed side by side with the library call
// candidates are judged by, each beside it until its own ratio to it settles (one library call
// for several candidates), under the first one's stopping rule, then check each again after its
// launches (the same bits: deterministic). `brief_check` (a race's brief round): the first input
// set only and no check after; a raced candidate is checked in full when it is screened, and
// every finalist in the final round, so none becomes a winner on the brief check alone.
struct TrialRequest {
  std::vector<KernelRun> kernels;
  bool brief_check = false;
  bool operator==(const TrialRequest&) const = default;
};

// "final": verify the finalists (the best trials, the leader first) in full again, time those
// that pass side by side with each other and with every library call, under the first one's
// stopping rule, and check them again after their launches, as a trial is.
struct FinalRequest {
  std::vector<KernelRun> finalists;
  bool operator==(const FinalRequest&) const = default;
};

// "profile": the hardware counters of one launch of a kernel (verified first) and of the library's
// fastest call: cuBLASLt-autotune's algorithm of configuration `library_algo` among the heuristic's
// `max_algorithms` (the choice tune recorded), or chosen again by timing where that is not given
// or no longer offered.
struct ProfileRequest {
  KernelRun kernel;
  std::optional<LtAlgoConfig> library_algo;
  int max_algorithms = kLtAutotuneAlgorithms;
  bool operator==(const ProfileRequest&) const = default;
};

// "quit": the worker exits.
struct QuitRequest {
  bool operator==(const QuitRequest&) const = default;
};

using WorkerRequest =
    std::variant<HelloRequest, ProblemRequest, BaselinesRequest, TrialRequest, FinalRequest, ProfileRequest,
                 QuitRequest>;

nlohmann::json to_json(const WorkerRequest& request);
// Throws std::runtime_error for an unknown op and nlohmann::json::exception for a missing field.
WorkerRequest worker_request_from_json(const nlohmann::json& j);

struct HelloReply {
  DeviceInfo device;
  bool operator==(const HelloReply&) const = default;
};

struct ProblemReply {
  std::array<double, 2> max_abs_reference{};  // per input set
  bool operator==(const ProblemReply&) const = default;
};

struct BaselineTiming {
  Provider provider = Provider::CublasTn;
  TimingStats stats;
  double max_diff = kNotMeasured;  // not measured for cuBLAS reading B in the other layout
  std::string detail;
  std::optional<LtAlgoConfig> lt_algo;  // cuBLASLt providers: the algorithm timed, where known
  std::optional<CallTrace> trace{};      // the kernels one pass of the call ran
  bool operator==(const BaselineTiming&) const = default;
};

struct BaselinesReply {
  std::vector<BaselineTiming> baselines;
  double tolerance = 0;  // of input set 1, which the baselines are checked on
  bool operator==(const BaselinesReply&) const = default;
};

struct TrialReply {
  TrialStatus status = TrialStatus::Ok;  // Ok, VerifyFailed or LaunchFailed
  std::string reason;                    // why it failed; empty when Ok
  double max_diff = kNotMeasured;        // worst input set's when Ok; the failing one's otherwise
  double tolerance = kNotMeasured;
  TimingStats stats{};                   // Ok only: the candidate's,
  TimingStats reference_stats{};         // and the library call's, timed side by side
  std::optional<CallTrace> trace{};      // Ok only: the kernels one pass of the candidate ran
  bool operator==(const TrialReply&) const = default;
};

// The trials of one "trial" request, in the order asked.
struct TrialsReply {
  std::vector<TrialReply> trials;
  bool operator==(const TrialsReply&) const = default;
};

struct FinalistTiming {
  TimingStats stats;               // when status is Ok
  double max_diff = kNotMeasured;  // checked again right before the round
  // VerifyFailed where a check of the final round failed (the reason says which): it cannot win.
  TrialStatus status = TrialStatus::Ok;
  std::string reason;
  bool operator==(const FinalistTiming&) const = default;
};

struct FinalReply {
  std::vector<FinalistTiming> finalists;   // in the order asked
  std::map<Provider, TimingStats> times;   // every library call timed
  bool operator==(const FinalReply&) const = default;
};

struct ProfileReply {
  CallCounters ours;
  Provider library = Provider::CublasltAutotune;  // the library call profiled
  std::string library_detail;                     // which algorithm, and how it was chosen
  std::optional<LtAlgoConfig> library_algo;       // its configuration, where cuBLASLt reported it
  CallCounters library_counters;
  bool operator==(const ProfileReply&) const = default;
};

// The answer to any request that failed.
struct FailureReply {
  std::string error;
  bool user_error = false;  // the user can fix it (e.g. a shape too large for the GPU's memory)
  bool sticky = false;      // a CUDA error that leaves the context unusable: the worker exits
  bool operator==(const FailureReply&) const = default;
};

nlohmann::json to_json(const HelloReply& reply);
nlohmann::json to_json(const ProblemReply& reply);
nlohmann::json to_json(const BaselinesReply& reply);
nlohmann::json to_json(const TrialsReply& reply);
nlohmann::json to_json(const FinalReply& reply);
nlohmann::json to_json(const ProfileReply& reply);
nlohmann::json to_json(const FailureReply& reply);

// Each throws nlohmann::json::exception for a missing field, std::invalid_argument for an unknown
// provider or trial status.
HelloReply hello_reply_from_json(const nlohmann::json& j);
ProblemReply problem_reply_from_json(const nlohmann::json& j);
BaselinesReply baselines_reply_from_json(const nlohmann::json& j);
TrialsReply trials_reply_from_json(const nlohmann::json& j);
FinalReply final_reply_from_json(const nlohmann::json& j);
ProfileReply profile_reply_from_json(const nlohmann::json& j);
FailureReply failure_reply_from_json(const nlohmann::json& j);

// The parts the messages are made of.
nlohmann::json to_json(const LaunchGeometry& geometry);
LaunchGeometry launch_geometry_from_json(const nlohmann::json& j);

nlohmann::json to_json(const Problem& problem);
Problem problem_from_json(const nlohmann::json& j);


nlohmann::json to_json(const TimingStats& stats);
TimingStats timing_stats_from_json(const nlohmann::json& j);

}  // namespace cl2
