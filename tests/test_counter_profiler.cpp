// The counter profiler where CUPTI cannot profile, which needs no GPU: a CUPTI that does not load,
// one without the profiler's functions, and one that refuses (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
// from the stand-in library) give absent counters with a one-line reason and its fix, without
// launching the call; a refusal holds for every later measurement. Also the counters' own JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/counter_profiler.hpp"
#include "support/run_tool.hpp"

using namespace cl2;

namespace {

CallCounters measure_noting_launch(CounterProfiler& profiler, bool& launched) {
  return profiler.measure(nullptr, [&](cudaStream_t) { launched = true; });
}

}  // namespace

TEST(CounterProfiler, MissingCuptiGivesAbsentCountersNamingTheLibraryAndTheFix) {
  const CuptiLibrary missing = load_cupti({"/nonexistent/libcupti.so"});
  ASSERT_FALSE(missing.profiler.has_value());
  CounterProfiler profiler(missing);
  bool launched = false;
  const CallCounters counters = measure_noting_launch(profiler, launched);
  EXPECT_FALSE(counters.measured());
  EXPECT_FALSE(launched);
  EXPECT_TRUE(std::isnan(counters.value(CounterMetric::GpuTimeUs)));
  EXPECT_NE(counters.absent.find("/nonexistent/libcupti.so"), std::string::npos) << counters.absent;
  EXPECT_NE(counters.absent.find("set CL2_CUPTI_LIBRARY"), std::string::npos) << counters.absent;
  EXPECT_EQ(counters.absent.find('\n'), std::string::npos) << counters.absent;
}

TEST(CounterProfiler, RefusedPermissionGivesAbsentCountersWithTheFixEveryTime) {
  const CuptiLibrary refusing = load_cupti({cl2_test::fake_cupti_library()});
  ASSERT_TRUE(refusing.profiler.has_value()) << refusing.profiler_unavailable;
  CounterProfiler profiler(refusing);
  bool launched = false;
  const CallCounters first = measure_noting_launch(profiler, launched);
  EXPECT_FALSE(first.measured());
  EXPECT_FALSE(launched);
  EXPECT_NE(first.absent.find("cuptiProfilerInitialize failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)"),
            std::string::npos)
      << first.absent;
  EXPECT_NE(first.absent.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << first.absent;
  EXPECT_EQ(first.absent.find('\n'), std::string::npos) << first.absent;
  EXPECT_EQ(measure_noting_launch(profiler, launched), first);
  EXPECT_FALSE(launched);
  EXPECT_EQ(profiler_unavailable(refusing), first.absent);
}

TEST(CounterProfiler, ACuptiThatTracesButCannotProfileSaysWhatItLacks) {
  // libm resolves none of CUPTI: neither the tracer nor the profiler takes it, and the profiler's
  // reason is the loader's.
  const CuptiLibrary wrong = load_cupti({"libm.so.6"});
  EXPECT_FALSE(wrong.profiler.has_value());
  EXPECT_EQ(profiler_unavailable(wrong), wrong.unavailable);
}

TEST(CallCounters, JsonRoundTripKeepsNotCollectedAsNullAndAbsentAsItsReason) {
  CallCounters c;
  c.set(CounterMetric::GpuTimeUs, 1552.0);
  c.set(CounterMetric::TensorActivePct, 99.7);
  const auto j = to_json(c);
  EXPECT_DOUBLE_EQ(j.at("gpu_time_us").get<double>(), 1552.0);
  EXPECT_TRUE(j.at("occupancy_pct").is_null());
  EXPECT_EQ(call_counters_from_json(j), c);
  const CallCounters absent = absent_counters("no CUPTI");
  EXPECT_EQ(to_json(absent), nlohmann::json({{"absent", "no CUPTI"}}));
  EXPECT_EQ(call_counters_from_json(to_json(absent)), absent);
  EXPECT_FALSE(c == absent);
}
