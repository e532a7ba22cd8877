#pragma once
// The runtime library's core, without the GPU: checks a call's arguments, decides where it goes
// (runtime/dispatch), once per problem, with the kernel's launch geometry there, and hands it to
// the backend. An untuned shape's decision is made at its first call, by timing the cost model's
// first few choices there (runtime/first_call_timing) and, given a planner, the first kernels
// tune would plan there (runtime/shape_planner). Thread-safe.
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/dispatch.hpp"
#include "runtime/first_call_timing.hpp"
#include "runtime/gemm_backend.hpp"
#include "runtime/shape_planner.hpp"

namespace cl2 {

struct DispatchOptions {
  // Every call goes to cuBLASLt (a table tuned on another GPU, opened with CL2_OPEN_LIBRARY_FALLBACK).
  bool library_only = false;
  // How many of the model's first choices an untuned shape's first call times; below 2, none.
  int timed_candidates = kDefaultTimedCandidates;
  // How many kernels planned at an untuned shape are timed beside those, where the runtime has a
  // planner (and first-call timing is on).
  int planned_candidates = kDefaultPlannedCandidates;
};

class Runtime {
 public:
  // `planner` null: an untuned shape gets the nearest winners only (a bundle holds no compiler).
  Runtime(DispatchTable table, const DeviceLimits& device, std::unique_ptr<GemmBackend> backend,
          DispatchOptions options = {}, std::unique_ptr<ShapePlanner> planner = nullptr);

  // Throws RuntimeError (CL2_ERROR_INVALID_ARGUMENT) for a size < 1 or beyond 2^31 - 1, a null
  // pointer, or a leading dimension smaller than its matrix's row; returns what ran. The first
  // call of an untuned shape outside a graph capture times the model's first choices (holding the
  // runtime's lock while it waits for them) and runs the fastest last, so that C is its result.
  // Its first gemm() or describe() also compiles the kernels a planner plans there where the
  // kernel cache lacks them, under the same lock: other threads' calls wait for that too.
  const Decision& gemm(const GemmCall& call);

  // What gemm() runs for `problem` with tight, aligned operands, as one line (cl2_describe).
  std::string describe(const Problem& problem);

  const DispatchTable& table() const { return table_; }

 private:
  struct Candidate {
    Decision decision;
    LaunchGeometry geometry;  // of decision.config at the problem, where ours
  };
  struct Plan {
    // The model's first choices: the one decision of a tuned shape or cuBLASLt, several where an
    // untuned shape's first call times them.
    std::vector<Candidate> ranked;
    std::optional<Candidate> timed;     // the fastest of `ranked` at the first call, its times kept
    const Candidate* chosen = nullptr;  // null until decided: while the first call is pending
  };
  Plan& plan(const Problem& problem, bool ours_allowed);
  // Decisions for kernels planned at `problem`, their entries kept in planned_entries_; none
  // whose configuration `ranked` already holds.
  std::vector<Decision> planned_decisions(const Problem& problem, const std::vector<Decision>& ranked);
  Candidate candidate(Decision decision, const Problem& problem) const;
  static std::size_t planned_count(const Plan& plan);  // kernels planned at the shape among `ranked`
  const Candidate& time_first_call(Plan& plan, const GemmCall& call);
  void run(const Candidate& chosen, const GemmCall& call);

  DispatchTable table_;
  DeviceLimits device_;
  FamilyRules rules_;
  std::unique_ptr<GemmBackend> backend_;
  DispatchOptions options_;
  std::unique_ptr<ShapePlanner> planner_;
  std::deque<DispatchEntry> planned_entries_;  // never move: decisions point at them
  std::mutex mutex_;
  // Plans never move once made (std::map), so callers may keep references to their candidates,
  // which never change once a plan holds them.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, Layout, Accum, bool>, Plan> plans_;
};

}  // namespace cl2
