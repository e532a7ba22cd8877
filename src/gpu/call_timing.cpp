#include "gpu/call_timing.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "gpu/cuda_check.hpp"

namespace cl2 {

namespace {
using Clock = std::chrono::steady_clock;
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(2 * l2_bytes) {}

void L2Flusher::flush(cudaStream_t stream) {
  CL2_CUDA(cudaMemsetAsync(scratch_.get(), 0x5a, scratch_.bytes(), stream));
}

std::pair<double, double> CallTimer::time_call(const TimedCall& call) {
  cudaEvent_t start = nullptr, stop = nullptr;
  CL2_CUDA(cudaEventCreate(&start));
  CL2_CUDA(cudaEventCreate(&stop));
  if (flusher_) {
    flusher_->flush(stream_);
    CL2_CUDA(cudaStreamSynchronize(stream_));  // the flush is not part of the call's wall time
  }
  const auto t0 = Clock::now();
  CL2_CUDA(cudaEventRecord(start, stream_));
  call.launch_number(launches_++)(stream_);
  CL2_CUDA(cudaEventRecord(stop, stream_));
  CL2_CUDA(cudaStreamSynchronize(stream_));
  const auto t1 = Clock::now();
  float ms = 0;
  CL2_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {1000.0 * ms, std::chrono::duration<double, std::micro>(t1 - t0).count()};
}

std::vector<CallTimes> CallTimer::back_to_back(const std::vector<TimedCall>& calls, const StopRule& rule) {
  for (const auto& call : calls) time_call(call);  // warm-up
  std::vector<std::vector<double>> gpu(calls.size()), wall(calls.size());
  std::vector<std::size_t> order(calls.size());
  std::iota(order.begin(), order.end(), 0);
  const auto start = Clock::now();
  for (;;) {
    std::shuffle(order.begin(), order.end(), order_rng_);
    for (std::size_t i : order) {
      const auto [g, w] = time_call(calls[i]);
      gpu[i].push_back(g);
      wall[i].push_back(w);
    }
    // Settled on the wall times, which these measurements are for.
    std::vector<TimingStats> so_far;
    std::vector<double> seconds;
    for (const auto& w : wall) {
      so_far.push_back(summarize(w, 1));
      seconds.push_back(so_far.back().mean_us * so_far.back().samples * 1e-6);
    }
    if (stop_reason(rule, so_far, seconds, std::chrono::duration<double>(Clock::now() - start).count()) !=
        StopReason::GoOn)
      break;
  }
  std::vector<CallTimes> out;
  for (std::size_t i = 0; i < calls.size(); ++i) out.push_back({summarize(gpu[i], 1), summarize(wall[i], 1)});
  return out;
}

std::vector<CallTimes> CallTimer::after_idle_gaps(const std::vector<TimedCall>& calls, int gap_ms,
                                                  int samples) {
  std::vector<std::vector<double>> gpu(calls.size()), wall(calls.size());
  std::vector<std::size_t> order(calls.size());
  std::iota(order.begin(), order.end(), 0);
  for (int s = 0; s < samples; ++s) {
    std::shuffle(order.begin(), order.end(), order_rng_);
    for (std::size_t i : order) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
      const auto [g, w] = time_call(calls[i]);
      gpu[i].push_back(g);
      wall[i].push_back(w);
    }
  }
  std::vector<CallTimes> out;
  for (std::size_t i = 0; i < calls.size(); ++i) out.push_back({summarize(gpu[i], 1), summarize(wall[i], 1)});
  return out;
}

}  // namespace cl2
