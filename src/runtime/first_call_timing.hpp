#pragma once
// First-call timing of an untuned shape. The cost model ranks the winners of the nearest tuned
// shapes only roughly: on the H200 its ranking lifted issue 12's sample to 0.874x of tuning the
// shapes directly, but lost where it left a near winner for a model favourite (3000x4096x4104
// 1.038x -> 0.820x, 1x3584x4608 0.935x -> 0.858x). So at an untuned shape's first call the
// runtime times the model's first few on the caller's own operands and stream, keeps the fastest
// and runs it from then on. Timing waits for the GPU, which a stream being captured into a CUDA
// graph must not do: there the model's first runs, and the decision waits for a call outside one.
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/gemm_backend.hpp"

namespace cl2 {

// How many of the model's first choices are timed, unless CL2_FIRST_CALL_TIMING or
// CL2_OPEN_NO_FIRST_CALL_TIMING says otherwise. Few, because the first call pays for them: each
// is launched kTimingRounds times, and, opened from a database, compiled on first use (a bundle
// carries their cubins).
inline constexpr int kDefaultTimedCandidates = 3;
inline constexpr int kMaxTimedCandidates = 16;
// Rounds of the round robin; a candidate's time is its median over them, so that the first
// round's cold caches, module loads and clock ramp do not count.
inline constexpr int kTimingRounds = 5;

// The count that CL2_FIRST_CALL_TIMING's value asks for: null or empty for the default, 0 (or 1)
// for no timing, at most kMaxTimedCandidates. RuntimeError (CL2_ERROR_INVALID_ARGUMENT) naming the
// variable and the fix for anything else.
int timed_candidates_from_env(const char* value);

struct FirstCallTimes {
  std::vector<double> median_us;  // per candidate, in the order given
  std::size_t fastest = 0;        // the first with the lowest median: equal times keep the model's order
};

// Times `candidates` on `call`'s operands and stream: kTimingRounds rounds, each launching every
// candidate once in the order given (so that all of them see the same clocks and caches).
FirstCallTimes time_candidates(GemmBackend& backend, const std::vector<CandidateLaunch>& candidates, const GemmCall& call);

// What cl2_describe adds to the decision's line: "; first-call timing of the model's first 3
// (median of 5): 125.1, 120.3 (chosen), 130.2 us" (with "and 2 planned at the shape" where the
// last `planned` of the times are kernels planned there), or, before the first call, that it is
// pending.
std::string timing_note(const FirstCallTimes& times, std::size_t planned);
std::string pending_timing_note(std::size_t candidates, std::size_t planned);

}  // namespace cl2
