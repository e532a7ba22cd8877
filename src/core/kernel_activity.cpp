#include "core/kernel_activity.hpp"

#include <algorithm>
#include <cstdint>

namespace cl2 {

CallTrace trace_of_calls(std::vector<KernelActivity> records, std::uint32_t given_stream, int calls) {
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelActivity& a, const KernelActivity& b) { return a.start_ns < b.start_ns; });
  CallTrace trace;
  trace.calls = calls;
  for (const auto& r : records) {
    auto same = std::find_if(trace.kernels.begin(), trace.kernels.end(), [&](const TracedKernel& k) {
      return k.name == r.name && k.stream_id == r.stream_id && k.grid == r.grid && k.block == r.block;
    });
    if (same == trace.kernels.end())
      same = trace.kernels.insert(trace.kernels.end(),
                                  TracedKernel{r.name, r.stream_id, r.stream_id == given_stream, r.grid, r.block, 0, 0.0});
    same->launches += 1;
    if (r.end_ns > r.start_ns) same->duration_us += double(r.end_ns - r.start_ns) * 1e-3;
  }
  return trace;
}

std::vector<KernelActivity> last_pass(std::vector<KernelActivity> records, int repeats) {
  if (repeats <= 1) return records;
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelActivity& a, const KernelActivity& b) { return a.start_ns < b.start_ns; });
  const std::size_t kept = records.size() / std::size_t(repeats);
  records.erase(records.begin(), records.end() - std::ptrdiff_t(kept));
  return records;
}

double span_us(const std::vector<KernelActivity>& records) {
  std::uint64_t first = UINT64_MAX, last = 0;
  for (const auto& r : records) {
    if (r.end_ns <= r.start_ns) continue;  // not stamped
    first = std::min(first, r.start_ns);
    last = std::max(last, r.end_ns);
  }
  return last > first ? double(last - first) * 1e-3 : 0.0;
}

}  // namespace cl2
