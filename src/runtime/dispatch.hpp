#pragma once
// The runtime library's choice for one GEMM, made from the dispatch table alone (no GPU), so that
// it is tested on any machine:
//   1. the tuned shape itself: its winner, or the recorded cuBLASLt algorithm where that measured
//      faster (best of both);
//   2. an untuned shape: the first kRankedWinners distinct configurations among the winners of the
//      nearest tuned shapes (log M, N, K; same layout and accumulator) that the family's rules
//      allow at this shape (kernels take M, N, K at run time, but e.g. KB_PAIR needs K % 64 == 0
//      and TMA stores N % 8 == 0), each also with its split-K re-chosen where the same cubin runs
//      it (runtime/family_rules); of those, the one the family's calibrated cost model (the
//      estimate tune plans by) ranks fastest AT THIS SHAPE, equal estimates going to the nearer
//      shape. The nearest winner alone often suited only its own shape: on the H200 it reached
//      0.806x of tuning 20 untuned shapes directly (geomean), down to 0.477x where a split-K-8
//      winner of 64x1024x4096 ran 77x768x3072 as 22 clusters of 8 CTAs, of which 15 fit at once.
//      The whole ranking is kept (ranked_decisions): the runtime times its first few at the
//      shape's first call (runtime/first_call_timing), since the model's favourite was at times
//      slower than a near winner it passed over;
//      Where the runtime can compile (runtime/shape_planner), the first few configurations tune
//      would plan at the shape itself are timed beside them (route OursPlanned);
//   3. else cuBLASLt's heuristic.
// Operands our kernels were not verified on (leading dimensions other than the tight ones,
// pointers not 16-byte aligned) always go to cuBLASLt.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "runtime/dispatch_table.hpp"
#include "runtime/family_rules.hpp"

namespace cl2 {

// How many of the nearest tuned shapes' winners (distinct configurations valid at the shape) the
// cost model ranks for an untuned shape: more than the 8 tuned corners of a grid cell, so that a
// tile suited to the shape is likely among them, but not the whole table: the model ranks a
// shape's variants only roughly (rank correlation 0.30 on shapes held out of its calibration,
// configs/spaces/sm90.json), and a winner of a similar shape was at least measured best near it.
inline constexpr std::size_t kRankedWinners = 12;

enum class Route {
  OursExact,         // the winner tuned at this shape
  OursNearest,       // a winner of a nearby tuned shape, ranked by the cost model
  OursPlanned,       // planned at this untuned shape and compiled at its first call, chosen by timing
  LibraryRecorded,   // cuBLASLt with the algorithm tune found fastest at this shape
  LibraryHeuristic,  // cuBLASLt with its heuristic's first algorithm
};

// "ours_exact", "ours_nearest", "ours_planned", "cublaslt_recorded", "cublaslt_heuristic": how bench's reports name
// the route a call took.
std::string_view to_string(Route route);

struct Decision {
  Route route = Route::LibraryHeuristic;
  const DispatchEntry* entry = nullptr;  // the kernel run, or (LibraryRecorded) the entry holding the algorithm
  std::string why;                       // one line, for cl2_describe and warnings
  // What runs (ours): the entry's configuration, for OursNearest with its split-K possibly
  // re-chosen (the same cubin, other kernel arguments and launch geometry).
  KernelConfig config;
  // Where the runtime timed the model's first choices at the shape's first call and kept the
  // fastest: each one's median time in µs, in the model's order. Empty where nothing was timed.
  std::vector<double> timed_us = {};
  bool ours() const { return route != Route::LibraryRecorded && route != Route::LibraryHeuristic; }
};

// How the decision was made: "exact" (the shape's own winner), "nearest-model" (a nearby shape's
// winner, the cost model's first), "nearest-timed" or "planned-timed" (the fastest of the model's
// first few and the kernels planned at the shape, timed at the first call) or "library" (cuBLASLt,
// recorded or heuristic); bench's reports name it so.
std::string_view chosen_by(const Decision& decision);

// Every choice for `problem`, best first (its L2 policy is ignored in matching the table, and
// priced by the cost model); `ours_allowed` false where the operands rule our kernels out. An
// untuned shape that our kernels take gets every ranked configuration, in the model's order
// (equal estimates keep the nearer shape, and a winner's own split-K before its variants); every
// other route is one decision.
std::vector<Decision> ranked_decisions(const DispatchTable& table, const Problem& problem, bool ours_allowed,
                                       const FamilyRules& rules);

// The decision to run `entry`, planned at its own untuned shape (runtime/shape_planner): the
// `rank`-th of the plan there that compiled clean, modelled at `model_us`.
Decision planned_decision(const DispatchEntry& entry, std::size_t rank, double model_us);

// The first of ranked_decisions.
Decision decide(const DispatchTable& table, const Problem& problem, bool ours_allowed, const FamilyRules& rules);

// Whether our kernels may take these operands: the leading dimensions they were verified with
// (lda = K, ldb = K for TN and N for NN, ldc = N) and 16-byte aligned pointers (cp.async, TMA).
bool operands_fit_our_kernels(const Problem& problem, const void* a, long long lda, const void* b, long long ldb,
                              const void* c, long long ldc);

}  // namespace cl2
