// The worker's requests and replies survive the trip through a JSON line unchanged: every struct of
// runner/protocol.hpp is written, dumped, parsed and read back equal. Not-measured values (NaN)
// travel as null and come back as NaN, so do absent kernel traces and counters; an unknown op or
// provider is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "runner/protocol.hpp"

using namespace cl2;
using nlohmann::json;

namespace {

// What the pipe does to a message: one line of text, parsed on the other side.
json over_the_wire(const json& message) { return json::parse(message.dump()); }

TimingStats stats(double median_us) {
  return {median_us, median_us + 0.25, median_us - 0.5, median_us + 1.5, 0.75, 17, 42};
}

StopRule rule(int min_samples) {
  return {.min_samples = min_samples, .max_samples = 77, .max_error = 0.0125, .min_seconds = 0.003,
          .max_seconds = 0.5, .replay_target_us = 250, .settle_on_ratios = true};
}

KernelRun kernel_run() {
  KernelRun run;
  run.cubin_path = "/cache/ab/cdef.cubin";
  run.launch.threads = 384;
  run.launch.grid = {132, 1, 1};
  run.launch.cluster = {2, 1, 1};
  run.launch.smem_bytes = 200704;
  run.launch.workspace_bytes = 4096;
  run.launch.tensor_maps = {{"a", 64, 128, 128}, {"b", 64, 256, 128, 2}};
  run.launch.runtime = {{"k_blocks_per_split", 16}, {"tiles_m", 32}};
  run.config = {"sm90", {{"BM", 128}, {"BN", 256}, {"STAGES", 4}}};
  run.stop = rule(5);
  return run;
}

KernelRun second_kernel_run() {
  KernelRun run = kernel_run();
  run.cubin_path = "/cache/12/3456.cubin";
  run.config.params["BN"] = 128;
  run.launch.programmatic = true;  // a PDL kernel: the worker must launch it to overlap
  return run;
}

WorkerRequest request_round_trip(const WorkerRequest& request) {
  return worker_request_from_json(over_the_wire(to_json(request)));
}

}  // namespace

TEST(WorkerProtocol, EveryRequestRoundTrips) {
  const std::vector<WorkerRequest> requests = {
      HelloRequest{},
      ProblemRequest{{{3000, 4096, 77}, Layout::NN, Accum::F16}},
      ProblemRequest{{{3000, 4096, 77}, Layout::NN, Accum::F16, L2Policy::Rotate}},
      ProblemRequest{{{1, 4096, 4096}, Layout::TN, Accum::F32, L2Policy::Flush}},
      BaselinesRequest{12, rule(5), rule(15)},
      TrialRequest{{kernel_run()}},
      TrialRequest{{kernel_run(), second_kernel_run()}},
      TrialRequest{{kernel_run(), second_kernel_run()}, /*brief_check=*/true},
      FinalRequest{{kernel_run()}},
      FinalRequest{{kernel_run(), second_kernel_run()}},
      ProfileRequest{kernel_run(), LtAlgoConfig{66, "64x32", "64xAUTO", 1, "none", 0, 3, "1x2x1"}, 12},
      ProfileRequest{kernel_run(), std::nullopt, 64},
      QuitRequest{},
  };
  for (const auto& request : requests) {
    EXPECT_EQ(request_round_trip(request), request) << to_json(request).dump();
  }
  EXPECT_TRUE(std::holds_alternative<FinalRequest>(request_round_trip(FinalRequest{{kernel_run()}})));
}

TEST(WorkerProtocol, RequestsSayTheirOp) {
  EXPECT_EQ(to_json(HelloRequest{}).at("op"), "hello");
  EXPECT_EQ(to_json(TrialRequest{{kernel_run()}}).at("op"), "trial");
  EXPECT_EQ(to_json(QuitRequest{}).at("op"), "quit");
  EXPECT_THROW(worker_request_from_json(json{{"op", "launch"}}), std::runtime_error);
  EXPECT_THROW(worker_request_from_json(json{{"op", "problem"}}), json::exception);
}

TEST(WorkerProtocol, ProblemWithoutAnL2PolicyIsWarm) {
  json message = to_json(ProblemRequest{{{64, 128, 256}, Layout::TN, Accum::F32, L2Policy::Rotate}});
  EXPECT_EQ(message.at("problem").at("l2"), "rotate");
  message["problem"].erase("l2");
  const auto request = worker_request_from_json(over_the_wire(message));
  EXPECT_EQ(std::get<ProblemRequest>(request).problem.l2, L2Policy::Warm);
  EXPECT_EQ(std::get<ProblemRequest>(request).problem.shape, (GemmShape{64, 128, 256}));
  message["problem"]["l2"] = "cold";
  EXPECT_THROW(worker_request_from_json(message), std::runtime_error);
}

TEST(WorkerProtocol, HelloAndProblemRepliesRoundTrip) {
  HelloReply hello;
  hello.device.name = "NVIDIA H200";
  hello.device.cc_major = 9;
  hello.device.num_sms = 132;
  hello.device.l2_bytes = 60 << 20;
  hello.device.driver_version = "13.0";
  EXPECT_EQ(hello_reply_from_json(over_the_wire(to_json(hello))), hello);

  const ProblemReply problem{{1.5, 6.25}};
  EXPECT_EQ(problem_reply_from_json(over_the_wire(to_json(problem))), problem);
}

// cuBLASLt's algorithms as the H200 reported them (data/h200-cublaslt-choices-2026-12-01.csv).
const LtAlgoConfig kHeuristicAlgo{66, "64x8", "64xAUTO", 1, "none", 0, 3, "1x4x1"};
const LtAlgoConfig kAutotuneAlgo{21, "128x64", "64x4", 4, "compute_type", 1, 0, "2x1x1"};

TEST(WorkerProtocol, BaselinesReplyRoundTripsWithUnmeasuredDiffs) {
  const BaselinesReply reply{
      {{Provider::CublasTn, stats(50), 0.001, "GemmEx", std::nullopt},
       {Provider::CublasNn, stats(51), 0.0, "GemmEx reading B in the other layout", std::nullopt},
       {Provider::CublasltHeuristic, stats(49), 0.002, "heuristic top-1", kHeuristicAlgo},
       {Provider::CublasltAutotune, stats(48), 0.003, "algo #3 of 12 tried", kAutotuneAlgo}},
      0.0125};
  EXPECT_EQ(baselines_reply_from_json(over_the_wire(to_json(reply))), reply);

  BaselinesReply unmeasured = reply;
  unmeasured.baselines[1].max_diff = kNotMeasured;
  const json wire = over_the_wire(to_json(unmeasured));
  EXPECT_TRUE(wire.at("baselines")[1].at("max_diff").is_null());
  EXPECT_TRUE(std::isnan(baselines_reply_from_json(wire).baselines[1].max_diff));
}

TEST(WorkerProtocol, BaselineAlgorithmsTravelAsObjectsOrNull) {
  BaselinesReply reply{{{Provider::CublasTn, stats(50), 0.001, "GemmEx", std::nullopt},
                        {Provider::CublasltAutotune, stats(48), 0.003, "algo #3 of 12 tried", kAutotuneAlgo}},
                       0.0125};
  json wire = over_the_wire(to_json(reply));
  EXPECT_TRUE(wire.at("baselines")[0].at("lt_algo").is_null());
  EXPECT_EQ(wire.at("baselines")[1].at("lt_algo").at("tile"), "128x64");
  EXPECT_EQ(wire.at("baselines")[1].at("lt_algo").at("reduction"), "compute_type");
  EXPECT_EQ(wire.at("baselines")[1].at("lt_algo").at("splitk"), 4);
  // A query that failed on the GPU is absent, not a failed reply; so is a field a worker left out.
  reply.baselines[1].lt_algo.reset();
  EXPECT_EQ(baselines_reply_from_json(over_the_wire(to_json(reply))), reply);
  wire.at("baselines")[1].erase("lt_algo");
  EXPECT_EQ(baselines_reply_from_json(wire).baselines[1].lt_algo, std::nullopt);
}

// A split-K call as CUPTI traced it: two kernels on the given stream, and a call that put its
// second kernel on another stream.
CallTrace traced_call(bool side_stream = false) {
  return {{{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", 9, true, {66, 2, 1}, {384, 1, 1}, 1, 40.5},
           {"splitKreduce_kernel", side_stream ? 10u : 9u, !side_stream, {128, 1, 1}, {256, 1, 1}, 1, 3.25}},
          ""};
}

TEST(WorkerProtocol, BaselineTracesTravelTracedAbsentOrNot) {
  const BaselinesReply reply{
      {{Provider::CublasTn, stats(50), 0.001, "GemmEx", std::nullopt, traced_call()},
       {Provider::CublasNn, stats(51), 0.0, "GemmEx", std::nullopt, traced_call(true)},
       {Provider::CublasltHeuristic, stats(49), 0.002, "heuristic top-1", kHeuristicAlgo,
        absent_trace("CUPTI could not be loaded (libcupti.so: cannot open shared object file)")},
       {Provider::CublasltAutotune, stats(48), 0.003, "algo #3 of 12 tried", kAutotuneAlgo, std::nullopt}},
      0.0125};
  json wire = over_the_wire(to_json(reply));
  EXPECT_EQ(baselines_reply_from_json(wire), reply);
  EXPECT_EQ(wire.at("baselines")[0].at("trace").at("kernels")[1].at("name"), "splitKreduce_kernel");
  EXPECT_TRUE(wire.at("baselines")[3].at("trace").is_null());
  // A worker that predates traces leaves the field out: not traced.
  wire.at("baselines")[0].erase("trace");
  EXPECT_EQ(baselines_reply_from_json(wire).baselines[0].trace, std::nullopt);
}

TEST(WorkerProtocol, TrialRepliesRoundTripInEveryStatusInTheirOrder) {
  const TrialReply ok{TrialStatus::Ok, "", 0.004, 0.0125, stats(20), stats(22), traced_call(true)};
  const TrialReply untraced{TrialStatus::Ok, "", 0.004, 0.0125, stats(20), stats(22), absent_trace("no CUPTI")};
  const TrialReply wrong{TrialStatus::VerifyFailed, "max_diff 3 above tolerance 0.01 on input set 2", 3.0, 0.01};
  const TrialReply failed{TrialStatus::LaunchFailed, "too many resources requested for launch"};
  const TrialsReply back = trials_reply_from_json(over_the_wire(to_json(TrialsReply{{ok, untraced, wrong, failed}})));
  ASSERT_EQ(back.trials.size(), 4u);
  EXPECT_EQ(back.trials[0], ok);
  EXPECT_EQ(back.trials[1], untraced);
  EXPECT_EQ(back.trials[2], wrong);
  EXPECT_EQ(back.trials[3].status, TrialStatus::LaunchFailed);
  EXPECT_EQ(back.trials[3].reason, failed.reason);
  EXPECT_TRUE(std::isnan(back.trials[3].max_diff));
  EXPECT_TRUE(std::isnan(back.trials[3].tolerance));
}

TEST(WorkerProtocol, FinalReplyRoundTripsFinalistsInOrderAndLibrariesByName) {
  FinalReply reply;
  FinalistTiming failed;
  failed.max_diff = 0.5;
  failed.status = TrialStatus::VerifyFailed;
  failed.reason = "not deterministic: after 400 more launches its output differs";
  const auto timed = [](double us, double max_diff) {
    return FinalistTiming{stats(us), max_diff, TrialStatus::Ok, ""};
  };
  reply.finalists = {timed(20, 0.004), timed(19.5, 0.002), timed(21, kNotMeasured), failed};
  reply.times = {{Provider::CublasNn, stats(24)},
                 {Provider::CublasTn, stats(23)},
                 {Provider::CublasltHeuristic, stats(22)},
                 {Provider::CublasltAutotune, stats(21)}};
  const json wire = over_the_wire(to_json(reply));
  EXPECT_TRUE(wire.at("times").contains("cublaslt_autotune"));
  EXPECT_TRUE(wire.at("finalists").at(2).at("max_diff").is_null());
  EXPECT_FALSE(wire.at("finalists").at(3).contains("stats")) << "a finalist that failed was not timed";
  const FinalReply back = final_reply_from_json(wire);
  ASSERT_EQ(back.finalists.size(), 4u);
  EXPECT_EQ(back.finalists[1], reply.finalists[1]);
  EXPECT_TRUE(std::isnan(back.finalists[2].max_diff));
  EXPECT_EQ(back.finalists[3], failed);
  EXPECT_EQ(back.times, reply.times);

  json unknown = wire;
  unknown["times"]["cutlass"] = unknown["times"]["cublas_nn"];
  EXPECT_THROW(final_reply_from_json(unknown), std::invalid_argument);
}

TEST(WorkerProtocol, ProfileReplyRoundTripsMeasuredPartlyCollectedOrAbsent) {
  CallCounters ours;
  for (std::size_t i = 0; i < kCounterMetricCount; ++i) ours.values[i] = 10.5 * double(i + 1);
  ours.set(CounterMetric::OccupancyPct, kNotMeasured);  // dropped: it needed a second pass
  CallCounters library = ours;
  library.set(CounterMetric::GpuTimeUs, 13.7);
  const ProfileReply reply{ours, Provider::CublasltAutotune, "the algorithm tune chose",
                           LtAlgoConfig{66, "64x32", "64xAUTO", 1, "none", 0, 3, "1x2x1"}, library};
  const json wire = over_the_wire(to_json(reply));
  EXPECT_TRUE(wire.at("ours").at("occupancy_pct").is_null());
  EXPECT_EQ(wire.at("library"), "cublaslt_autotune");
  const ProfileReply back = profile_reply_from_json(wire);
  EXPECT_EQ(back, reply);
  EXPECT_TRUE(std::isnan(back.ours.value(CounterMetric::OccupancyPct)));
  EXPECT_DOUBLE_EQ(back.library_counters.value(CounterMetric::GpuTimeUs), 13.7);

  const CallCounters refused = absent_counters("CUPTI cuptiRangeProfilerStart failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  const ProfileReply absent{refused, Provider::CublasTn, "", std::nullopt, refused};
  EXPECT_EQ(profile_reply_from_json(over_the_wire(to_json(absent))), absent);
  EXPECT_NE(absent, reply);  // measured and absent counters differ
}

TEST(WorkerProtocol, RepliesSayWhetherTheyAreFailures) {
  EXPECT_TRUE(to_json(HelloReply{}).at("ok").get<bool>());
  EXPECT_TRUE(to_json(FinalReply{}).at("ok").get<bool>());
  const FailureReply failure{"shape 99999x99999x99999: needs 120 GiB", true, false};
  const json wire = over_the_wire(to_json(failure));
  EXPECT_FALSE(wire.at("ok").get<bool>());
  EXPECT_EQ(failure_reply_from_json(wire), failure);
  const FailureReply sticky{"an illegal memory access was encountered", false, true};
  EXPECT_EQ(failure_reply_from_json(over_the_wire(to_json(sticky))), sticky);
}
