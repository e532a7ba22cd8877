// Traced kernels and the judgement made with them (core/call_trace): a call whose event time is
// below its kernels' duration per call beyond the tolerance, or that ran a kernel on a stream it
// was not given, is flagged; an untraced call is never flagged; the JSON form round-trips, and a
// trace stored before traces covered several calls reads as one call (and without a timed pass).
// Also CUPTI's records of a traced sample grouped into its trace, and the last of repeated
// passes picked out (core/kernel_activity).
#include <gtest/gtest.h>

#include "core/call_trace.hpp"
#include "core/kernel_activity.hpp"

using namespace cl2;

namespace {

constexpr std::uint32_t kGiven = 7, kOther = 8;

TracedKernel kernel(const std::string& name, double duration_us, std::uint32_t stream = kGiven, int launches = 1) {
  return {name, stream, stream == kGiven, {132, 1, 1}, {384, 1, 1}, launches, duration_us};
}

// cuBLAS's split-K: the GEMM, then the reduction, both on the given stream.
CallTrace split_k(double gemm_us = 40.0, double reduce_us = 5.0) {
  return {{kernel("nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", gemm_us), kernel("splitKreduce_kernel", reduce_us)},
          ""};
}

}  // namespace

TEST(CallTrace, SumsDurationsAndListsEachNameOnceInLaunchOrder) {
  CallTrace trace = split_k();
  trace.kernels.push_back(kernel("splitKreduce_kernel", 2.0, kOther));
  EXPECT_DOUBLE_EQ(trace.duration_us(), 47.0);
  EXPECT_EQ(trace.kernel_names(),
            (std::vector<std::string>{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", "splitKreduce_kernel"}));
  EXPECT_EQ(join_kernel_names(trace.kernel_names(), " + "),
            "nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN + splitKreduce_kernel");
  EXPECT_EQ(join_kernel_names({}, "+"), "");
}

TEST(CallTrace, EventTimeThatCoversItsKernelsIsNotFlagged) {
  EXPECT_EQ(timing_flag(46.0, split_k()), "");  // the launch gap between the two kernels
  EXPECT_EQ(timing_flag(45.0, split_k()), "");
  // Within the tolerance below: clocks and timestamps differ a little between the two passes.
  EXPECT_EQ(timing_flag(45.0 * (1 - kTraceTolerance) + 0.01, split_k()), "");
}

TEST(CallTrace, EventTimeBelowItsKernelsBeyondTheToleranceIsFlagged) {
  const std::string flag = timing_flag(45.0 * (1 - kTraceTolerance) - 0.01, split_k());
  EXPECT_NE(flag.find("below the 45.00 us per call its kernels ran (2 kernel launch(es) over 1 traced call(s))"),
            std::string::npos)
      << flag;
  // Events that saw only the first of two equal halves of the work.
  EXPECT_NE(timing_flag(20.0, split_k(20.0, 20.0)), "");
  // Launches of one kernel count each.
  CallTrace repeated{{kernel("cl2_gemm", 30.0, kGiven, 3)}, ""};
  EXPECT_NE(timing_flag(10.0, repeated).find("3 kernel launch(es) over 1 traced call(s)"), std::string::npos);
}

TEST(CallTrace, EventTimeIsHeldAgainstTheKernelTimePerTracedCall) {
  // A sample of 4 back-to-back calls of the split-K pair: 180 us of kernels, 45 us per call.
  CallTrace sample{{kernel("nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", 160.0, kGiven, 4),
                    kernel("splitKreduce_kernel", 20.0, kGiven, 4)},
                   "",
                   4};
  EXPECT_DOUBLE_EQ(sample.duration_us(), 180.0);
  EXPECT_DOUBLE_EQ(sample.kernel_us_per_call(), 45.0);
  EXPECT_EQ(timing_flag(45.5, sample), "");
  EXPECT_EQ(timing_flag(45.0 * (1 - kTraceTolerance) + 0.01, sample), "");
  const std::string flag = timing_flag(45.0 * (1 - kTraceTolerance) - 0.01, sample);
  EXPECT_NE(flag.find("below the 45.00 us per call its kernels ran (8 kernel launch(es) over 4 traced call(s))"),
            std::string::npos)
      << flag;
}

TEST(CallTrace, ToleranceLetsTwoPassesDriftButNotAMissedQuarter) {
  // The traced pass of a correct call at the power cap ran up to 17% longer than its event time on
  // the H200 (event / traced 0.833); a call whose events miss a quarter of its work is flagged.
  EXPECT_EQ(timing_flag(45.0 * 0.83, split_k()), "");
  EXPECT_NE(timing_flag(45.0 * 0.74, split_k()), "");
}

TEST(CallTrace, KernelOnAnotherStreamIsFlaggedWhateverTheTimes) {
  CallTrace two_streams{{kernel("cl2_gemm", 20.0), kernel("cl2_fill_uniform", 1.0, kOther)}, ""};
  const std::string flag = timing_flag(100.0, two_streams);
  EXPECT_NE(flag.find("launched cl2_fill_uniform on a stream other than the one it was given"), std::string::npos)
      << flag;
}

TEST(CallTrace, UntracedCallIsNeverFlagged) {
  const CallTrace absent = absent_trace("CUPTI could not be loaded");
  EXPECT_FALSE(absent.traced());
  EXPECT_EQ(timing_flag(0.001, absent), "");
  EXPECT_TRUE(split_k().traced());
}

TEST(CallTrace, JsonRoundTripsTracedAndAbsent) {
  CallTrace timed_pass = split_k();
  timed_pass.sample_pass = PassTiming{48.5, 47.25, 48.0};
  for (const CallTrace& trace : {split_k(), timed_pass, CallTrace{{kernel("cl2_gemm", 3.5, kOther, 2)}, "", 2},
                                 absent_trace("CUPTI cuptiActivityEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")}) {
    const nlohmann::json wire = nlohmann::json::parse(to_json(trace).dump());
    EXPECT_EQ(call_trace_from_json(wire), trace) << wire.dump();
  }
  const nlohmann::json holder = {{"trace", to_json(split_k())}, {"none", nullptr}};
  EXPECT_EQ(call_trace_at(holder, "trace"), split_k());
  EXPECT_EQ(call_trace_at(holder, "none"), std::nullopt);
  EXPECT_EQ(call_trace_at(holder, "missing"), std::nullopt);
  EXPECT_THROW(call_trace_from_json(nlohmann::json{{"kernels", {{{"name", "x"}}}}}), nlohmann::json::exception);
}

TEST(CallTrace, TraceStoredBeforeSamplesReadsAsOneCall) {
  nlohmann::json stored = to_json(split_k());
  stored.erase("calls");  // as written when the traced pass was one launch
  const CallTrace old = call_trace_from_json(stored);
  EXPECT_EQ(old.calls, 1);
  EXPECT_DOUBLE_EQ(old.kernel_us_per_call(), 45.0);
  EXPECT_EQ(old.sample_pass, std::nullopt);  // nor was its pass timed
}

TEST(CallTrace, PassStoredBeforeItsSpanReadsWithTheSpanUnmeasured) {
  CallTrace traced = split_k();
  traced.sample_pass = PassTiming{46.0, 45.0, 45.5};
  nlohmann::json stored = to_json(traced);
  EXPECT_EQ(call_trace_from_json(stored), traced);
  stored["sample_pass"].erase("span_us");  // as written before the span was recorded
  const CallTrace old = call_trace_from_json(stored);
  ASSERT_TRUE(old.sample_pass.has_value());
  EXPECT_DOUBLE_EQ(old.sample_pass->event_us, 46.0);
  EXPECT_DOUBLE_EQ(old.sample_pass->span_us, 0.0);
}

TEST(CallTrace, TheDifferenceOfTwoReplaysLeavesOutWhatEachReplayCostsOnce) {
  // 40 launches of a 2 us call with 0.1 us gaps: 84 us of events, 82 us of span, 80 us of
  // kernels, plus 6.6 us of events each replay pays once; 80 launches the same twice over.
  const PassTiming single{84.0 + 6.6, 80.0, 82.0}, doubled{168.0 + 6.6, 160.0, 164.0};
  const PassTiming calls = pass_difference(doubled, single);
  EXPECT_NEAR(calls.event_us, 84.0, 1e-9);
  EXPECT_NEAR(calls.kernel_us, 80.0, 1e-9);
  EXPECT_NEAR(calls.span_us, 82.0, 1e-9);
  EXPECT_NEAR(calls.event_us / calls.span_us, 84.0 / 82.0, 1e-12);  // 2.4% over, where one replay was 10%
}

TEST(KernelActivity, RecordsOfASampleGroupIntoOneEntryPerKernelStreamAndGeometry) {
  // Three back-to-back split-K calls, CUPTI's records out of order, one reduction on a side stream,
  // and one record CUPTI could not stamp.
  std::vector<KernelActivity> records;
  for (int call = 0; call < 3; ++call) {
    const std::uint64_t t = 1000 * std::uint64_t(call);
    records.push_back({"splitKreduce_kernel", call == 2 ? kOther : kGiven, {4, 1, 1}, {128, 1, 1}, t + 600, t + 650});
    records.push_back({"nvjet_splitK", kGiven, {132, 1, 1}, {384, 1, 1}, t + 100, call == 1 ? 0 : t + 500});
  }
  const CallTrace trace = trace_of_calls(records, kGiven, 3);
  ASSERT_EQ(trace.kernels.size(), 3u);
  EXPECT_EQ(trace.calls, 3);
  EXPECT_EQ(trace.kernels[0].name, "nvjet_splitK");  // first launched first
  EXPECT_EQ(trace.kernels[0].launches, 3);
  EXPECT_DOUBLE_EQ(trace.kernels[0].duration_us, 0.8);  // 2 stamped launches of 0.4 us
  EXPECT_EQ(trace.kernels[1].name, "splitKreduce_kernel");
  EXPECT_EQ(trace.kernels[1].launches, 2);
  EXPECT_TRUE(trace.kernels[1].on_given_stream);
  EXPECT_FALSE(trace.kernels[2].on_given_stream);
  EXPECT_DOUBLE_EQ(trace.kernel_us_per_call(), (0.8 + 0.1 + 0.05) / 3);
  EXPECT_NE(timing_flag(100.0, trace).find("on a stream other than the one it was given"), std::string::npos);
  EXPECT_DOUBLE_EQ(span_us(records), 2.55);  // 100 ns to 2650 ns; the unstamped launch does not count
  EXPECT_DOUBLE_EQ(span_us({}), 0.0);
}

TEST(KernelActivity, LastPassOfRepeatedPassesIsTheirLatestShareByStart) {
  // Two replays of two split-K calls (4 records each), CUPTI's records out of order.
  std::vector<KernelActivity> records;
  for (int launch = 0; launch < 4; ++launch) {
    const std::uint64_t t = 1000 * std::uint64_t(launch);
    records.push_back({"splitKreduce_kernel", kGiven, {4, 1, 1}, {128, 1, 1}, t + 600, t + 650});
    records.push_back({"nvjet_splitK", kGiven, {132, 1, 1}, {384, 1, 1}, t + 100, t + 500});
  }
  const auto last = last_pass(records, 2);
  ASSERT_EQ(last.size(), 4u);
  for (const auto& r : last) EXPECT_GE(r.start_ns, 2000u);
  EXPECT_DOUBLE_EQ(span_us(last), 1.55);  // 2100 ns to 3650 ns: the second replay alone
  EXPECT_EQ(last_pass(records, 1).size(), records.size());
}
