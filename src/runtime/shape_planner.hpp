#pragma once
// Kernels planned for an untuned shape at its first call. The winners of the nearest tuned shapes
// suit their own shapes: on the H200 the best of them reached 0.874x of tuning issue 12's 20-shape
// sample directly (geomean), and the worst losses were shapes whose direct winner is a tile sized
// to the shape (a swapped 64x112 tile at 777x1024x4096: one wave) that won at no tuned shape. So,
// where the runtime can compile (opened from a tuning database: the kernel cache and NVRTC), the
// first call also times the first configurations tune itself would plan at the shape.
#include <cstddef>
#include <vector>

#include "compiler/kernel_compiler.hpp"
#include "runtime/dispatch_table.hpp"
#include "runtime/family_rules.hpp"

namespace cl2 {

// How many planned kernels an untuned shape's first call times beside the nearest winners, unless
// CL2_PLANNED_CANDIDATES says otherwise: the plan's first two are each family's two most different
// cheapest variants, and every one costs the first call a compile where the cache lacks it.
inline constexpr int kDefaultPlannedCandidates = 2;
inline constexpr int kMaxPlannedCandidates = 8;

// The count CL2_PLANNED_CANDIDATES's value asks for: null or empty for the default, 0 for none, at
// most kMaxPlannedCandidates. RuntimeError (CL2_ERROR_INVALID_ARGUMENT) naming the variable and the
// fix for anything else.
int planned_candidates_from_env(const char* value);

class ShapePlanner {
 public:
  virtual ~ShapePlanner() = default;
  // Up to `count` kernels for `problem`, in the plan's order (rules.plan), each as an entry of its
  // own (tuned at no shape: ours_us unmeasured, no library algorithm) whose cubin the runtime's
  // cubin source can produce. Configurations in `held` (the nearest winners, timed anyway) are left
  // out before the cut, so that their slots go to the plan's next variants.
  virtual std::vector<DispatchEntry> plan(const FamilyRules& rules, const Problem& problem, std::size_t count,
                                          const std::vector<KernelConfig>& held) const = 0;
};

// Compiles the plan through the kernel cache, a few more than asked in parallel, and keeps the
// first `count` that compiled clean: a variant that ptxas spilled or that failed to compile is
// never timed, as in tune.
class CompilingShapePlanner final : public ShapePlanner {
 public:
  explicit CompilingShapePlanner(KernelCompiler compiler) : compiler_(std::move(compiler)) {}
  std::vector<DispatchEntry> plan(const FamilyRules& rules, const Problem& problem, std::size_t count,
                                  const std::vector<KernelConfig>& held) const override;

 private:
  KernelCompiler compiler_;
};

}  // namespace cl2
