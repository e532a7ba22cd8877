#pragma once
// The per-shape sections of summary.md (bench_summary.cpp writes the aggregate tables): best and
// worst shapes, throughput of the largest shapes, the shapes not tuned.
#include <string>

#include "bench/bench_view.hpp"

namespace cl2 {

BenchMode offline_mode();
bool has_offline(const BenchView& view);

// "10 best" and "10 worst" shapes by offline GPU-time speedup over cuBLASLt-autotune.
std::string best_and_worst_section(const BenchView& view);
// Achieved TFLOP/s and GB/s (offline GPU time) of ours and cuBLASLt-autotune for the 10 largest
// shapes, against the measured peaks.
std::string throughput_section(const BenchView& view);
// Under the rotate and flush L2 policies (operands from DRAM): every shape's bytes per second, ours
// and cuBLASLt-autotune's, against the read-only streaming bandwidth measured in the same run;
// empty under warm, where what fits is read from the L2.
std::string bandwidth_section(const BenchView& view);
// Shapes without a winner, and shapes with one but no timing of ours: never silently skipped.
std::string untuned_section(const BenchView& view);

}  // namespace cl2
