#pragma once
// summary.md's section on the runtime library (provider "runtime"), kept apart from the tables of
// our kernels alone: its speedups over ours and over cuBLASLt-autotune beside ours over
// cuBLASLt-autotune, and where it sent each shape (exact winner, nearby tuned shape, cuBLASLt) and
// how it chose (exact, the model's first, timed at the first call, library).
#include <string>

#include "bench/bench_view.hpp"

namespace cl2 {

// Empty for a run without the runtime.
std::string runtime_section(const BenchView& view);

}  // namespace cl2
