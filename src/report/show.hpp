#pragma once
// `cuda-l2-tune show`: plain-text views of a tuning database for a person at a terminal.
#include <string>

#include "core/problem.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

// The file, its schema, how much it holds, its devices and a compact table of the winners.
std::string render_db_overview(const TuningDb& db);

// Everything measured for one problem, per device: the library baselines, then every trial,
// fastest first and failures last, the winner marked with '*'.
std::string render_problem_trials(const TuningDb& db, const Problem& problem);

}  // namespace cl2
