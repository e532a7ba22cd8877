#include "tune/stage_times.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>
#include <vector>

#include "report/text_table.hpp"

namespace cl2 {

namespace {

const char* stage_name(RunStage stage) {
  switch (stage) {
    case RunStage::Compiling: return "compiling";
    case RunStage::Setup: return "setup";
    case RunStage::Libraries: return "libraries";
    case RunStage::Racing: return "racing";
    case RunStage::Screening: return "screening";
    case RunStage::Final: return "final rounds";
    case RunStage::kCount: break;
  }
  return "?";
}

// Tenths of a second where a stage took under a minute: short stages are the ones compared.
std::string seconds_text(double seconds) {
  return seconds < 59.95 ? fmt::format("{:.1f}s", seconds) : format_duration(seconds);
}

}  // namespace

RunStage stage_of(const WorkerRequest& request) {
  if (const auto* trial = std::get_if<TrialRequest>(&request))
    return !trial->kernels.empty() && trial->kernels.front().stop == race_stop_rule() ? RunStage::Racing
                                                                                       : RunStage::Screening;
  if (std::holds_alternative<BaselinesRequest>(request)) return RunStage::Libraries;
  if (std::holds_alternative<FinalRequest>(request)) return RunStage::Final;
  return RunStage::Setup;  // the worker's start, each shape's inputs and references
}

std::size_t units_of(const WorkerRequest& request) {
  const auto* trial = std::get_if<TrialRequest>(&request);
  return trial ? trial->kernels.size() : 1;
}

void StageTimes::add(RunStage stage, double seconds, std::size_t units) {
  std::lock_guard lock(mutex_);
  seconds_[std::size_t(stage)] += seconds;
  count_[std::size_t(stage)] += units;
}

std::vector<RunStageTime> StageTimes::recorded() const {
  std::lock_guard lock(mutex_);
  std::vector<RunStageTime> out;
  for (std::size_t i = 0; i < seconds_.size(); ++i)
    if (count_[i] > 0) out.push_back({stage_name(RunStage(i)), seconds_[i], std::int64_t(count_[i])});
  return out;
}

std::string StageTimes::summary(double wall_seconds, std::size_t workers) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> parts;
  double staged = 0;
  for (std::size_t i = 0; i < seconds_.size(); ++i) {
    if (count_[i] == 0) continue;
    const auto stage = RunStage(i);
    staged += seconds_[i];
    std::string part = fmt::format("{} {} ({:.0f}%)", stage_name(stage), seconds_text(seconds_[i]),
                                   wall_seconds > 0 ? 100.0 * seconds_[i] / wall_seconds : 0.0);
    if (stage == RunStage::Racing || stage == RunStage::Screening)
      part += fmt::format(", {} candidates at {:.0f} ms", count_[i], 1000.0 * seconds_[i] / double(count_[i]));
    parts.push_back(std::move(part));
  }
  std::string line = fmt::format("time by stage: {}", fmt::join(parts, "; "));
  if (workers > 1) return line + fmt::format(" (worker times summed over {} GPUs)", workers);
  return line + fmt::format("; the rest {} (database, planning, the tuner's own work)",
                            seconds_text(std::max(0.0, wall_seconds - staged)));
}

}  // namespace cl2
