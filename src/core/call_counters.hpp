#pragma once
// Hardware counters of one call, as the CUPTI Range Profiler measured one pass of it
// (gpu/counter_profiler), and the list of metrics collected. Plain data (no CUDA header): the
// worker protocol, the database and `profile`'s report carry it on machines without a GPU.
#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace cl2 {

enum class CounterMetric {
  GpuTimeUs,
  DramThroughputPct,
  DramReadBytes,
  L2Bytes,
  L2ThroughputPct,
  TensorActivePct,
  OccupancyPct,
};

// One metric: its key (JSON key and database column), CUPTI's name, the factor from CUPTI's unit
// to the stored one, how `profile` prints it (label, factor from the stored unit, decimals), and
// whether the set may be collected without it.
struct CounterMetricSpec {
  CounterMetric metric;
  std::string_view key;
  std::string_view cupti_name;
  double scale;
  std::string_view label;
  double shown_factor;
  int shown_decimals;
  // The first five are the set DESIGN.md measured with ncu in one pass on the H200. The others
  // join only where the chip collects them in that same pass (CounterProfiler checks each): a
  // metric that needs a second pass is dropped and stays NaN, because a second pass would replay
  // the call and its counters would no longer describe one launch.
  bool optional;
};

inline constexpr std::size_t kCounterMetricCount = 7;
inline constexpr std::array<CounterMetricSpec, kCounterMetricCount> kCounterMetrics = {{
    {CounterMetric::GpuTimeUs, "gpu_time_us", "gpu__time_duration.sum", 1e-3, "GPU time (us)", 1.0, 2, false},
    {CounterMetric::DramThroughputPct, "dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
     1.0, "DRAM throughput (% of peak)", 1.0, 1, false},
    {CounterMetric::DramReadBytes, "dram_read_bytes", "dram__bytes_read.sum", 1.0, "DRAM read (MB)", 1e-6, 1, false},
    {CounterMetric::L2Bytes, "l2_bytes", "lts__t_bytes.sum", 1.0, "L2 traffic (MB)", 1e-6, 1, false},
    {CounterMetric::TensorActivePct, "tensor_active_pct",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 1.0, "tensor pipe active (%)", 1.0, 1,
     false},
    // The L2 traffic above against the L2's own peak: the same counter, so it costs no pass where
    // the chip can rate it.
    {CounterMetric::L2ThroughputPct, "l2_throughput_pct", "lts__t_bytes.sum.pct_of_peak_sustained_elapsed", 1.0,
     "L2 throughput (% of peak)", 1.0, 1, true},
    // Achieved occupancy as ncu reports it: active warps per SM against the SM's maximum.
    {CounterMetric::OccupancyPct, "occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", 1.0,
     "achieved occupancy (%)", 1.0, 1, true},
}};

const CounterMetricSpec& counter_metric_spec(CounterMetric metric);

struct CallCounters {
  // Per metric in kCounterMetrics order, in our units; NaN where not collected.
  std::array<double, kCounterMetricCount> values;
  std::string absent;  // why there are no counters (no CUPTI, no permission...); empty when measured

  CallCounters();
  bool measured() const { return absent.empty(); }
  double value(CounterMetric metric) const;
  void set(CounterMetric metric, double value);
  bool operator==(const CallCounters& other) const;  // NaN equals NaN: "not collected" on both
};

// Counters that were not measured, and why.
CallCounters absent_counters(std::string reason);

// {"gpu_time_us": ..., ...} (null for a metric not collected) or {"absent": "why"};
// call_counters_from_json throws nlohmann::json::exception for a mistyped field.
nlohmann::json to_json(const CallCounters& counters);
CallCounters call_counters_from_json(const nlohmann::json& j);

}  // namespace cl2
