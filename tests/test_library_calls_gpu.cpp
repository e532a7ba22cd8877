// The library calls of a problem on a real GPU (skipped, with the reason, where there is none): a
// call's graph serves the problem's later measurements at the same replay target, and a new choice
// of cuBLASLt algorithm forgets it; where autotune chose the heuristic's top-1, the two are one
// call.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "measure/gpu_context.hpp"
#include "measure/problem_measurement.hpp"
#include "support/require_gpu.hpp"
#include "support/run_tool.hpp"

using namespace cl2;

namespace {

// 256x1024x1024 measured on GPU 0, with up to 4 cuBLASLt algorithms found.
struct LibraryCallsGpu : ::testing::Test {
  void SetUp() override { CL2_REQUIRE_GPU(); }
  cl2_test::ScratchDir dir;
  std::unique_ptr<GpuContext> gpu;
  std::unique_ptr<ProblemMeasurement> problem;

  ProblemMeasurement& measured() {
    const char* shared = std::getenv("CL2_TEST_SHARED_CACHE");
    gpu = std::make_unique<GpuContext>(query_device(0), shared && *shared ? shared : dir.file("cache"));
    problem = std::make_unique<ProblemMeasurement>(*gpu, Problem{{256, 1024, 1024}, Layout::TN, Accum::F32});
    problem->find_lt_algorithms(4);
    return *problem;
  }
};

}  // namespace

TEST_F(LibraryCallsGpu, ALibraryCallsGraphServesLaterMeasurementsUntilItsAlgorithmChanges) {
  ProblemMeasurement& measurement = measured();
  measurement.autotune_lt(screening_stop_rule());
  const auto timed = [&](Provider provider) {
    const ProviderCall call = measurement.library_call(provider);
    EXPECT_NE(call.call.kept, nullptr);
    return measurement.time_side_by_side({call}, screening_stop_rule()).at(provider);
  };
  for (const Provider provider : {Provider::CublasTn, Provider::CublasltAutotune}) {
    SCOPED_TRACE(to_string(provider));
    const TimingStats first = timed(provider);
    const TimingStats again = timed(provider);  // the kept graph, replayed as it was built
    EXPECT_EQ(again.calls_per_sample, first.calls_per_sample);
    EXPECT_NEAR(again.median_us, first.median_us, 0.1 * first.median_us);
    EXPECT_LE(measurement.max_diff(measurement.library_call(provider).call), measurement.tolerance());
  }
  // Choosing again forgets the cuBLASLt graphs (a stale one would replay the old algorithm).
  measurement.autotune_lt(screening_stop_rule());
  EXPECT_GT(timed(Provider::CublasltAutotune).samples, 0);
  EXPECT_LE(measurement.max_diff(measurement.library_call(Provider::CublasltAutotune).call), measurement.tolerance());
}

TEST_F(LibraryCallsGpu, WhereAutotuneChoseTheHeuristicsTopOneTheyAreOneCall) {
  ProblemMeasurement& measurement = measured();
  const auto heuristic = measurement.lt_algo_config(Provider::CublasltHeuristic);
  ASSERT_TRUE(heuristic.has_value());
  ASSERT_TRUE(measurement.choose_lt_algorithm(*heuristic));  // as if autotune had found #0 fastest
  EXPECT_EQ(measurement.timed_as(Provider::CublasltHeuristic), Provider::CublasltAutotune);
  EXPECT_EQ(measurement.timed_as(Provider::CublasltAutotune), Provider::CublasltAutotune);
  EXPECT_EQ(measurement.timed_as(Provider::CublasTn), Provider::CublasTn);
  EXPECT_TRUE(measurement.has_call(Provider::CublasltHeuristic));  // still reported, from the one call
}
