// The L2 policies on a real GPU (skipped, with the reason, where there is none): under rotate a
// call cycles through rotation_copies copies of its operands, whole turns per timed replay; under
// flush every sample is one call alone; warm calls have no rotation.
#include <gtest/gtest.h>

#include <cstdlib>

#include "measure/gpu_context.hpp"
#include "measure/problem_measurement.hpp"
#include "support/require_gpu.hpp"
#include "support/run_tool.hpp"

using namespace cl2;

namespace {

std::string cache_dir(const cl2_test::ScratchDir& dir) {
  const char* shared = std::getenv("CL2_TEST_SHARED_CACHE");
  return shared && *shared ? shared : dir.file("cache");
}

Problem decode_problem(L2Policy l2) { return {{16, 4096, 4096}, Layout::TN, Accum::F32, l2}; }

}  // namespace

TEST(L2PolicyGpu, RotateCyclesWholeTurnsOfCopiesFlushTimesCallsAloneWarmNeither) {
  CL2_REQUIRE_GPU();
  cl2_test::ScratchDir dir;
  GpuContext gpu(query_device(0), cache_dir(dir));
  for (const L2Policy policy : kL2Policies) {
    const Problem problem = decode_problem(policy);
    ProblemMeasurement measurement(gpu, problem);
    measurement.find_lt_algorithms(4);
    measurement.autotune_lt(screening_stop_rule());
    const std::size_t copies = std::size_t(rotation_copies(problem, gpu.device.l2_bytes));
    std::vector<ProviderCall> calls;
    for (const Provider provider : measurement.library_providers()) {
      calls.push_back(measurement.library_call(provider));
      EXPECT_EQ(calls.back().call.rotation.size(), policy == L2Policy::Rotate ? copies : 0u)
          << problem.text() << " " << to_string(provider);
    }
    // Every copy holds the first input set, so the library's output is right on each of them.
    EXPECT_LE(measurement.max_diff(calls.back().call), measurement.tolerance()) << problem.text();
    const ProviderTimes times = measurement.time_side_by_side(calls, screening_stop_rule());
    for (const auto& [provider, stats] : times) {
      EXPECT_GT(stats.samples, 0) << problem.text();
      if (policy == L2Policy::Flush) {
        EXPECT_EQ(stats.calls_per_sample, 1) << problem.text();
      }
      if (policy == L2Policy::Rotate) {
        EXPECT_EQ(stats.calls_per_sample % int(copies), 0) << problem.text();
      }
    }
  }
}
