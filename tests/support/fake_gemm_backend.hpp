#pragma once
// A GemmBackend for the runtime's CPU tests: it runs nothing, counts and records what the runtime
// asks of it, and answers first-call timing with times the test makes up.
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/gemm_backend.hpp"

namespace cl2_test {

struct FakeBackend : cl2::GemmBackend {
  std::mutex mutex;
  std::atomic<int> kernels{0}, libraries{0};
  const cl2::DispatchEntry* last_entry = nullptr;
  cl2::LaunchGeometry last_geometry;
  std::optional<cl2::LtAlgoConfig> last_algo;
  // The time of the i-th launch of a time_kernels sequence; 10 µs for all by default.
  std::function<double(const cl2::CandidateLaunch&, std::size_t)> launch_us = [](const cl2::CandidateLaunch&, std::size_t) {
    return 10.0;
  };
  std::vector<std::vector<cl2::CandidateLaunch>> timed;  // each time_kernels sequence
  std::string order;                               // 't' per time_kernels, 'k' per run_kernel, 'l' per run_library
  bool stream_captured = false;
  bool bias_twins = true;           // whether run_kernel finds a kernel's bias twin
  const void* last_bias = nullptr;  // the bias of the last run_kernel or run_library

  bool run_kernel(const cl2::DispatchEntry& e, const cl2::LaunchGeometry& geometry, const cl2::GemmCall& call) override {
    const std::lock_guard lock(mutex);
    if (call.bias && !bias_twins) return false;
    ++kernels;
    order += 'k';
    last_entry = &e;
    last_geometry = geometry;
    last_bias = call.bias;
    return true;
  }
  void run_library(const cl2::GemmCall& call, const cl2::LtAlgoConfig* algo) override {
    const std::lock_guard lock(mutex);
    ++libraries;
    order += 'l';
    last_algo = algo ? std::optional(*algo) : std::nullopt;
    last_bias = call.bias;
  }
  std::vector<double> time_kernels(const std::vector<cl2::CandidateLaunch>& sequence, const cl2::GemmCall&) override {
    const std::lock_guard lock(mutex);
    order += 't';
    timed.push_back(sequence);
    std::vector<double> us;
    for (std::size_t i = 0; i < sequence.size(); ++i) us.push_back(launch_us(sequence[i], i));
    return us;
  }
  bool capturing(void*) override { return stream_captured; }
};

// A call of `problem` on tight, aligned (fake) operands.
inline cl2::GemmCall call(const cl2::Problem& problem) {
  alignas(16) static unsigned short operand[64];
  const cl2::GemmShape& s = problem.shape;
  return {problem, operand, s.k, operand, problem.layout == cl2::Layout::TN ? s.k : s.n, operand, s.n, nullptr};
}

}  // namespace cl2_test
