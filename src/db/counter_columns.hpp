#pragma once
// The metric columns of the counters table (schema 4, db/migrations/0004_*): one per
// kCounterMetrics entry, named by its key, so the SELECT, the upsert and the merge take their list
// from here.
#include <string>
#include <string_view>

namespace cl2 {

// "gpu_time_us, dram_throughput_pct, ..." with every name prefixed by `prefix` ("c." for an alias).
std::string counter_columns(std::string_view prefix = "");
// "gpu_time_us = excluded.gpu_time_us, ...": an upsert's update of those columns.
std::string counter_updates();

}  // namespace cl2
