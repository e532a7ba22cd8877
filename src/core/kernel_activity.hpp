#pragma once
// CUPTI's kernel records of a traced pass, as plain data, and how they become the pass's
// CallTrace. Kept apart from the tracer (gpu/kernel_trace), which needs a GPU to collect them, so
// that the grouping and the per-call arithmetic are tested on the CPU.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/call_trace.hpp"

namespace cl2 {

// One kernel launch as CUPTI recorded it.
struct KernelActivity {
  std::string name;  // demangled
  std::uint32_t stream_id = 0;
  std::array<int, 3> grid{}, block{};
  std::uint64_t start_ns = 0, end_ns = 0;  // both 0 where CUPTI could not stamp it
};

// The trace of `calls` back-to-back calls given `given_stream` (CUPTI's id of it) that launched
// `records`: launches of the same kernel on the same stream with the same geometry are one entry,
// in the order of their first launch, with their durations summed.
CallTrace trace_of_calls(std::vector<KernelActivity> records, std::uint32_t given_stream, int calls);

// Of `repeats` passes that each launched the same kernels back to back, the last pass's records:
// the latest records.size() / repeats of them by start.
std::vector<KernelActivity> last_pass(std::vector<KernelActivity> records, int repeats);

// From the first stamped kernel start to the last stamped kernel end, in microseconds: the window
// the GPU ran the records' kernels in, gaps between them included; 0 where none is stamped.
double span_us(const std::vector<KernelActivity>& records);

}  // namespace cl2
