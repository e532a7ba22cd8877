#include "gpu/timing_log.hpp"

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

namespace cl2 {

namespace {

const char* reason_text(StopReason reason) {
  switch (reason) {
    case StopReason::Settled: return "settled";
    case StopReason::Capped: return "capped";
    case StopReason::OutOfTime: return "out_of_time";
    case StopReason::GoOn: break;
  }
  return "unfinished";
}

// Per round, call `i`'s sample over the first call's.
std::vector<double> ratios_to_first(const std::vector<std::vector<double>>& samples, std::size_t i) {
  std::vector<double> ratios;
  for (std::size_t k = 0; k < samples[i].size() && k < samples[0].size(); ++k)
    if (samples[0][k] > 0) ratios.push_back(samples[i][k] / samples[0][k]);
  return ratios;
}

}  // namespace

const std::string& timing_log_path() {
  static const std::string path = [] {
    const char* named = std::getenv("CL2_TIMING_LOG");
    return std::string(named ? named : "");
  }();
  return path;
}

void append_measurement(const std::string& path, const MeasurementRecord& record) {
  nlohmann::json calls = nlohmann::json::array();
  for (std::size_t i = 0; i < record.calls.size(); ++i) {
    const TimingStats stats = summarize(record.samples[i], record.copies[i]);
    calls.push_back({{"name", record.calls[i]},
                     {"copies", record.copies[i]},
                     {"samples", stats.samples},
                     {"median_us", stats.median_us},
                     {"spread_pct", stats.spread_pct},
                     {"ratio_spread_pct", summarize(ratios_to_first(record.samples, i), 1).spread_pct}});
  }
  const nlohmann::json line = {{"rule",
                                {{"min_samples", record.rule.min_samples},
                                 {"max_samples", record.rule.max_samples},
                                 {"max_error", record.rule.max_error},
                                 {"min_seconds", record.rule.min_seconds},
                                 {"max_seconds", record.rule.max_seconds},
                                 {"replay_target_us", record.rule.replay_target_us}}},
                               {"reason", reason_text(record.reason)},
                               {"setup_s", record.setup_seconds},
                               {"wall_s", record.wall_seconds},
                               {"calls", calls}};
  std::ofstream out(path, std::ios::app);
  if (out) out << line.dump() << "\n";
}

}  // namespace cl2
