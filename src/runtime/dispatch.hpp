#pragma once
// The runtime library's choice for one GEMM, made from the dispatch table alone (no GPU), so that
// it is tested on any machine:
//   1. the tuned shape itself: its winner, or the recorded cuBLASLt algorithm where that measured
//      faster (best of both);
//   2. an untuned shape: the winner of the nearest tuned shape (log M, N, K; same layout and
//      accumulator) whose configuration the family's rules allow at this shape (kernels take
//      M, N, K at run time, but e.g. KB_PAIR needs K % 64 == 0 and TMA stores N % 8 == 0);
//   3. else cuBLASLt's heuristic.
// Operands our kernels were not verified on (leading dimensions other than the tight ones,
// pointers not 16-byte aligned) always go to cuBLASLt.
#include <functional>
#include <string>
#include <string_view>

#include "core/problem.hpp"
#include "runtime/dispatch_table.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

enum class Route {
  OursExact,         // the winner tuned at this shape
  OursNearest,       // the winner of the nearest tuned shape
  LibraryRecorded,   // cuBLASLt with the algorithm tune found fastest at this shape
  LibraryHeuristic,  // cuBLASLt with its heuristic's first algorithm
};

// "ours_exact", "ours_nearest", "cublaslt_recorded", "cublaslt_heuristic": how bench's reports name
// the route a call took.
std::string_view to_string(Route route);

struct Decision {
  Route route = Route::LibraryHeuristic;
  const DispatchEntry* entry = nullptr;  // the kernel run, or (LibraryRecorded) the entry holding the algorithm
  std::string why;                       // one line, for cl2_describe and warnings
  bool ours() const { return route == Route::OursExact || route == Route::OursNearest; }
};

// Whether the configuration of `entry` may run `problem` (its family's correctness rules).
using ConfigCheck = std::function<bool(const DispatchEntry& entry, const Problem& problem)>;

// The check against the built-in families' rules (the planning-only ones left out) on `device`;
// a configuration of a family this build does not know never runs.
ConfigCheck family_rules_check(const DeviceLimits& device);

// The choice for `problem` (its L2 policy is ignored); `ours_allowed` false where the operands
// rule our kernels out.
Decision decide(const DispatchTable& table, const Problem& problem, bool ours_allowed, const ConfigCheck& allowed);

// Whether our kernels may take these operands: the leading dimensions they were verified with
// (lda = K, ldb = K for TN and N for NN, ldc = N) and 16-byte aligned pointers (cp.async, TMA).
bool operands_fit_our_kernels(const Problem& problem, const void* a, long long lda, const void* b, long long ldb,
                              const void* c, long long ldc);

}  // namespace cl2
