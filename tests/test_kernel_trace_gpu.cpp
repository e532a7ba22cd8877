// Kernel tracing on a real GPU (skipped, with the reason, where there is none): a deliberately
// two-stream call, half its work on the stream it is given and the other half on a side stream
// made for the test, is flagged; the same work on the given stream alone is not, and its timed
// sample replayed with CUPTI on has events that agree with its kernels within 3%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "gpu/cuda_check.hpp"
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

// A stream and an event of the test's own, released at the end.
struct SideStream {
  SideStream() {
    CL2_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CL2_CUDA(cudaEventCreateWithFlags(&given_done, cudaEventDisableTiming));
  }
  ~SideStream() {
    cudaStreamSynchronize(stream);
    cudaEventDestroy(given_done);
    cudaStreamDestroy(stream);
  }
  cudaStream_t stream = nullptr;
  cudaEvent_t given_done = nullptr;
};

}  // namespace

TEST(KernelTraceGpu, TwoStreamCallIsFlaggedAndOneStreamCallIsNot) {
  CL2_REQUIRE_GPU();
  cl2_test::ScratchDir dir;
  GpuContext gpu(query_device(0), cache_dir(dir));
  // Large enough that a GEMM (about 200 us) dwarfs the host's submission delay, which the event
  // time of one launch includes (on 2048^3 it made the two-stream call's events see 41 of 49 us).
  ProblemMeasurement problem(gpu, {{4096, 4096, 4096}, Layout::TN, Accum::F32});
  const ProviderCall gemm = problem.library_call(Provider::CublasTn);

  // One stream: timed and traced as tune's worker does it.
  const TimingStats one_stream = problem.time_side_by_side({gemm}, screening_stop_rule()).at(gemm.provider);
  const CallTrace one_trace = problem.trace_kernels(gemm.call, one_stream.calls_per_sample);
  ASSERT_TRUE(one_trace.traced()) << one_trace.absent;
  ASSERT_FALSE(one_trace.kernels.empty());
  for (const auto& kernel : one_trace.kernels) EXPECT_TRUE(kernel.on_given_stream) << kernel.name;
  EXPECT_EQ(one_trace.calls, one_stream.calls_per_sample);
  EXPECT_EQ(timing_flag(one_stream.median_us, one_trace), "")
      << one_stream.median_us << " us against " << one_trace.kernel_us_per_call() << " us per call traced";
  // The timed sample replayed with CUPTI on: its own events see its kernels and little more (the
  // gaps between ~200 us launches in a graph are well under 1%).
  ASSERT_TRUE(one_trace.sample_pass.has_value());
  EXPECT_NEAR(one_trace.sample_pass->event_us / one_trace.sample_pass->kernel_us, 1.0, 0.03)
      << one_trace.sample_pass->event_us << " us of events against " << one_trace.sample_pass->kernel_us
      << " us of kernels";

  // Two streams: the GEMM on the given stream, then once more on the side stream once the first is
  // done, so the given stream's events see exactly half the work.
  SideStream side;
  const TimedCall two_streams{"two streams", [&](cudaStream_t given) {
                                gemm.call.launch(given);
                                CL2_CUDA(cudaEventRecord(side.given_done, given));
                                CL2_CUDA(cudaStreamWaitEvent(side.stream, side.given_done, 0));
                                gemm.call.launch(side.stream);
                              }};
  double event_us = 1e30;
  for (int i = 0; i < 3; ++i) {
    event_us = std::min(event_us, gpu.timer.time_once(two_streams));
    CL2_CUDA(cudaStreamSynchronize(side.stream));
  }
  const CallTrace two_trace = problem.trace_kernels(two_streams, 1);
  ASSERT_TRUE(two_trace.traced()) << two_trace.absent;
  EXPECT_EQ(two_trace.kernels.size(), 2 * one_trace.kernels.size());
  EXPECT_TRUE(std::any_of(two_trace.kernels.begin(), two_trace.kernels.end(),
                          [](const TracedKernel& k) { return !k.on_given_stream; }));
  const std::string flag = timing_flag(event_us, two_trace);
  EXPECT_NE(flag.find("on a stream other than the one it was given"), std::string::npos) << flag;
  EXPECT_FALSE(two_trace.sample_pass.has_value());  // its graph would not hold the side stream's work

  // The times alone give it away too: the events saw half of what the call ran.
  CallTrace streams_unknown = two_trace;
  for (auto& kernel : streams_unknown.kernels) kernel.on_given_stream = true;
  const std::string time_flag = timing_flag(event_us, streams_unknown);
  EXPECT_NE(time_flag.find("is below the"), std::string::npos)
      << event_us << " us against " << two_trace.duration_us() << " us traced";
}
