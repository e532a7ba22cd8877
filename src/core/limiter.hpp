#pragma once
// What limits a call, named from its counters by rules simple enough to state in the README: the
// busiest of the units a GEMM can saturate (tensor pipe, DRAM, L2), when it runs at kBusyPct of its
// peak or more; otherwise latency (no unit is near its peak: the call waits on dependencies, too
// few CTAs, or its launch). A pure function, so the rules are unit-tested without a GPU.
#include <string>
#include <string_view>

#include "core/call_counters.hpp"

namespace cl2 {

enum class Limiter { TensorPipe, Dram, L2, Latency, Unknown };

std::string_view to_string(Limiter limiter);  // "tensor pipe", "DRAM", "L2", "latency", "unknown"

// A unit at this share of its peak or more is what the call waits for. ncu's guidance calls a unit
// above 60% of peak the bottleneck; below that on every unit, latency is the limit.
inline constexpr double kBusyPct = 60.0;

struct LimiterVerdict {
  Limiter limiter = Limiter::Unknown;
  std::string why;  // "tensor pipe 97% of peak (DRAM 12%, L2 40%)"
  bool operator==(const LimiterVerdict&) const = default;
};

// Units are compared by their % of peak: tensor pipe active, DRAM throughput, L2 throughput; one
// that was not collected takes no part. On a tie the earlier in that order wins. Unknown where the
// counters are absent or none of the three was collected.
LimiterVerdict judge_limiter(const CallCounters& counters);

}  // namespace cl2
