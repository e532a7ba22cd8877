// IntervalTimer's launches before its rounds, on a real GPU (skipped, with the reason, where there
// is none): a call that has just run (TimedCall::warm) is not warmed up again, one at or above the
// replay target is sized by a single launch, and the graph is uploaded rather than replayed once.
// A call's host function runs once per launch made outside a graph and once per copy captured into
// it; graph replays run none, so the count says how many launches preceded the rounds.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/timing.hpp"
#include "support/require_gpu.hpp"

using namespace cl2;

namespace {

struct IntervalTimerGpu : ::testing::Test {
  void SetUp() override {
    CL2_REQUIRE_GPU();
    CL2_CUDA(cudaStreamCreate(&stream));
    buffer = DeviceBuffer(kBytes);
  }
  void TearDown() override {
    if (stream) cudaStreamDestroy(stream);
  }

  // A capturable call (a 64 MiB memset: tens of microseconds, so that even one launch times above
  // a 1 us replay target) that counts how often its host function ran.
  static constexpr std::size_t kBytes = std::size_t(64) << 20;
  TimedCall counted(int& runs, bool warm) {
    void* data = buffer.get();
    return {"memset", [&runs, data](cudaStream_t s) {
              ++runs;
              CL2_CUDA(cudaMemsetAsync(data, 0, kBytes, s));
            },
            {}, nullptr, warm};
  }

  static StopRule three_rounds(double replay_target_us) {
    return {.min_samples = 3, .max_samples = 3, .max_error = 1.0, .min_seconds = 0, .max_seconds = 5,
            .replay_target_us = replay_target_us};
  }

  cudaStream_t stream = nullptr;
  DeviceBuffer buffer;
};

}  // namespace

TEST_F(IntervalTimerGpu, ACallThatJustRanIsSizedByOneLaunchAtOrAboveTheReplayTarget) {
  int warm_runs = 0, cold_runs = 0;
  IntervalTimer timer(stream);
  // A 1 us target: one copy a replay, whatever the memset takes.
  const auto stats = timer.interleaved({counted(warm_runs, true), counted(cold_runs, false)}, three_rounds(1.0));
  ASSERT_EQ(stats.size(), 2u);
  for (const TimingStats& s : stats) {
    EXPECT_EQ(s.calls_per_sample, 1);
    EXPECT_EQ(s.samples, 3);
  }
  EXPECT_EQ(warm_runs, 1 + 1);  // sized, captured
  EXPECT_EQ(cold_runs, 2 + 1);  // warmed up, sized, captured
}

TEST_F(IntervalTimerGpu, AShortCallIsSizedByTheFasterOfTwoLaunches) {
  int runs = 0;
  IntervalTimer timer(stream);
  const auto stats = timer.interleaved({counted(runs, true)}, three_rounds(1000.0));
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_GT(stats[0].calls_per_sample, 1);  // a 64 MiB memset takes far less than 1 ms
  EXPECT_EQ(runs, 2 + stats[0].calls_per_sample);
  EXPECT_EQ(stats[0].samples, 3);
}
