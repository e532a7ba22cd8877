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

void append_line(const std::string& path, const nlohmann::json& line) {
  std::ofstream out(path, std::ios::app);
  if (out) out << line.dump() << "\n";
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
  const std::vector<TimingStats> ratios = ratios_to_first(record.samples);
  for (std::size_t i = 0; i < record.calls.size(); ++i) {
    const TimingStats stats = summarize(record.samples[i], record.copies[i]);
    calls.push_back({{"name", record.calls[i]},
                     {"copies", record.copies[i]},
                     {"samples", stats.samples},
                     {"median_us", stats.median_us},
                     {"spread_pct", stats.spread_pct},
                     {"ratio_spread_pct", ratios[i].spread_pct}});
  }
  const nlohmann::json line = {{"rule", to_json(record.rule)},
                               {"reason", reason_text(record.reason)},
                               {"setup_s", record.setup_seconds},
                               {"warm_up_s", record.warm_up_seconds},
                               {"wall_s", record.wall_seconds},
                               {"calls", calls}};
  append_line(path, line);
}

void append_trial_steps(const std::string& path, const TrialSteps& steps) {
  append_line(path, {{"trial_steps",
                      {{"prepare_s", steps.prepare_seconds},
                       {"verify_s", steps.verify_seconds},
                       {"measure_s", steps.measure_seconds},
                       {"verify_again_s", steps.verify_again_seconds},
                       {"trace_s", steps.trace_seconds}}}});
}

}  // namespace cl2
