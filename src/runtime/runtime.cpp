#include "runtime/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runtime/runtime_error.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

namespace {

void check_arguments(const GemmCall& call) {
  const GemmShape& s = call.problem.shape;
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  auto invalid = [&](const std::string& what) {
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT, fmt::format("cl2_gemm {} {}: {}", s.text(),
                                                               to_string(call.problem.layout), what));
  };
  if (s.m < 1 || s.n < 1 || s.k < 1) invalid("M, N and K must be at least 1");
  if (s.m > kMax || s.n > kMax || s.k > kMax) invalid("M, N and K must be below 2^31");
  if (!call.a || !call.b || !call.c) invalid("A, B and C must not be null");
  const std::int64_t b_row = call.problem.layout == Layout::TN ? s.k : s.n;
  if (call.lda < s.k) invalid(fmt::format("lda {} is smaller than K; pass lda >= K", call.lda));
  if (call.ldb < b_row)
    invalid(fmt::format("ldb {} is smaller than a row of B ({}); pass ldb >= {}", call.ldb, b_row, b_row));
  if (call.ldc < s.n) invalid(fmt::format("ldc {} is smaller than N; pass ldc >= N", call.ldc));
  if (call.lda > kMax || call.ldb > kMax || call.ldc > kMax) invalid("leading dimensions must be below 2^31");
}

}  // namespace

Runtime::Runtime(DispatchTable table, const DeviceLimits& device, std::unique_ptr<GemmBackend> backend,
                 DispatchOptions options, std::unique_ptr<ShapePlanner> planner)
    : table_(std::move(table)),
      device_(device),
      rules_(device, table_.calibrations),
      backend_(std::move(backend)),
      options_(options),
      planner_(std::move(planner)) {}

Runtime::Candidate Runtime::candidate(Decision decision, const Problem& problem) const {
  Candidate made{std::move(decision), {}};
  if (made.decision.ours()) {
    const KernelConfig& config = made.decision.config;
    const FamilySpec& family = builtin_families().at(config.family);
    made.geometry = launch_geometry(family, config_variables(family, config, problem, device_));
  }
  return made;
}

Runtime::Plan& Runtime::plan(const Problem& problem, bool ours_allowed) {
  const auto key = std::make_tuple(problem.shape.m, problem.shape.n, problem.shape.k, problem.layout,
                                   problem.accum, ours_allowed);
  if (auto found = plans_.find(key); found != plans_.end()) return found->second;
  std::vector<Decision> ranked;
  if (options_.library_only)
    ranked.push_back({Route::LibraryHeuristic, nullptr, "cublaslt heuristic: tuned on another GPU", {}});
  else ranked = ranked_decisions(table_, problem, ours_allowed, rules_);
  // Only an untuned shape's choice is timed: a tuned shape's winner was timed against its rivals
  // by tune, at that very shape.
  const bool timed = ranked.front().route == Route::OursNearest && options_.timed_candidates > 1;
  ranked.resize(timed ? std::min(ranked.size(), std::size_t(options_.timed_candidates)) : 1);
  if (timed)
    for (Decision& planned : planned_decisions(problem, ranked)) ranked.push_back(std::move(planned));
  std::vector<Candidate> candidates;
  for (Decision& decision : ranked) candidates.push_back(candidate(std::move(decision), problem));
  Plan& made = plans_[key];
  made.ranked = std::move(candidates);
  if (made.ranked.size() == 1) made.chosen = &made.ranked.front();
  return made;
}

std::size_t Runtime::planned_count(const Plan& plan) {
  return std::size_t(std::count_if(plan.ranked.begin(), plan.ranked.end(),
                                   [](const Candidate& c) { return c.decision.route == Route::OursPlanned; }));
}

std::vector<Decision> Runtime::planned_decisions(const Problem& problem, const std::vector<Decision>& ranked) {
  if (!planner_ || options_.planned_candidates < 1) return {};
  std::vector<KernelConfig> held;
  for (const Decision& decision : ranked) held.push_back(decision.config);
  std::vector<Decision> decisions;
  std::size_t rank = 0;
  for (DispatchEntry& entry : planner_->plan(rules_, problem, std::size_t(options_.planned_candidates), held)) {
    ++rank;
    const std::optional<double> model_us = rules_.model_us(entry.config, problem);
    if (!model_us) continue;
    decisions.push_back(planned_decision(planned_entries_.emplace_back(std::move(entry)), rank, *model_us));
  }
  return decisions;
}

const Runtime::Candidate& Runtime::time_first_call(Plan& plan, const GemmCall& call) {
  std::vector<CandidateLaunch> runs;
  for (const Candidate& c : plan.ranked) runs.push_back({c.decision.entry, &c.geometry});
  const FirstCallTimes times = time_candidates(*backend_, runs, call);
  Candidate fastest = plan.ranked[times.fastest];
  fastest.decision.why += timing_note(times, planned_count(plan));
  fastest.decision.timed_us = times.median_us;
  plan.timed = std::move(fastest);
  plan.chosen = &*plan.timed;
  return *plan.chosen;
}

void Runtime::run(const Candidate& chosen, const GemmCall& call) {
  const Decision& decision = chosen.decision;
  // A bias goes into our kernel's bias twin, or where the cubins came without one, to cuBLASLt
  // with the algorithm tune recorded at this very shape (its epilogue adds the bias).
  if (decision.ours() && backend_->run_kernel(*decision.entry, chosen.geometry, call)) return;
  const bool this_shape = decision.route == Route::LibraryRecorded || decision.route == Route::OursExact;
  backend_->run_library(call, this_shape && decision.entry->library_algo ? &*decision.entry->library_algo : nullptr);
}

const Decision& Runtime::gemm(const GemmCall& call) {
  check_arguments(call);
  const bool ours_allowed = operands_fit_our_kernels(call.problem, call.a, call.lda, call.b, call.ldb, call.c,
                                                     call.ldc);
  const Candidate* chosen = nullptr;
  {
    const std::lock_guard lock(mutex_);
    Plan& planned = plan(call.problem, ours_allowed);
    chosen = planned.chosen;
    // Undecided: a call inside a graph capture runs the model's first and leaves the decision to
    // the first call outside one, which times the candidates and runs the fastest after them.
    if (!chosen)
      chosen = backend_->capturing(call.stream) ? &planned.ranked.front() : &time_first_call(planned, call);
  }
  run(*chosen, call);
  return chosen->decision;
}

std::string Runtime::describe(const Problem& problem) {
  const std::lock_guard lock(mutex_);
  const Plan& planned = plan(problem, true);
  if (planned.chosen) return planned.chosen->decision.why;
  return planned.ranked.front().decision.why + pending_timing_note(planned.ranked.size(), planned_count(planned));
}

}  // namespace cl2
