#pragma once
// Messages between the tuning parent and its GPU worker process: one JSON object per line on the
// worker's stdin (requests) and on a private copy of its stdout (replies). Requests carry an
// "op": hello, problem, baselines, trial, final, quit. Every reply has "ok"; a failed request has
// "error" (and "user_error": true when the user can fix it, e.g. a shape too large for memory).
#include <nlohmann/json.hpp>

#include "core/problem.hpp"
#include "gpu/timing.hpp"
#include "search/candidates.hpp"

namespace cl2 {

nlohmann::json to_json(const LaunchGeometry& geometry);
LaunchGeometry launch_geometry_from_json(const nlohmann::json& j);

nlohmann::json to_json(const Problem& problem);
Problem problem_from_json(const nlohmann::json& j);

nlohmann::json to_json(const StopRule& rule);
StopRule stop_rule_from_json(const nlohmann::json& j);

nlohmann::json to_json(const TimingStats& stats);
TimingStats timing_stats_from_json(const nlohmann::json& j);

// Stop rules: a quick one to screen candidates, a careful one for the winner against the libraries.
StopRule screening_stop_rule();
StopRule final_stop_rule();

}  // namespace cl2
