// Traced kernels and the judgement made with them (core/call_trace): a call whose event time is
// below its kernels' summed duration beyond the tolerance, or that ran a kernel on a stream it was
// not given, is flagged; an untraced call is never flagged; the JSON form round-trips.
#include <gtest/gtest.h>

#include "core/call_trace.hpp"

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
  EXPECT_NE(flag.find("below the 45.00 us its 2 traced kernel launch(es) ran"), std::string::npos) << flag;
  // Events that saw only the first of two equal halves of the work.
  EXPECT_NE(timing_flag(20.0, split_k(20.0, 20.0)), "");
  // Launches of one kernel count each.
  CallTrace repeated{{kernel("cl2_gemm", 30.0, kGiven, 3)}, ""};
  EXPECT_NE(timing_flag(10.0, repeated).find("3 traced kernel launch(es)"), std::string::npos);
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
  for (const CallTrace& trace : {split_k(), CallTrace{{kernel("cl2_gemm", 3.5, kOther, 2)}, ""},
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
