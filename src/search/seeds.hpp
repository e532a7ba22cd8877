#pragma once
// Seeds for a shape's plan: the configurations that won on the tuned shapes nearest to it. A
// winner is often near-best on a neighbouring shape even where the cost model misranks it, and
// costs one slot to try.
#include <cstddef>
#include <utility>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace cl2 {

// Indices into `tuned` of the problems with the same layout and accumulator as `problem`, nearest
// first by the distance between log2 M, log2 N and log2 K (the problem itself counts, at distance 0);
// equal distances keep the order of `tuned`.
std::vector<std::size_t> nearest_tuned(const std::vector<std::pair<Problem, KernelConfig>>& tuned,
                                       const Problem& problem);

// The winners of `tuned` (problem, winning configuration) with the same layout and accumulator as
// `problem`, nearest first by the distance between log2 M, log2 N and log2 K (the problem itself
// counts, at distance 0), each configuration once, at most `count`.
std::vector<KernelConfig> nearest_winners(const std::vector<std::pair<Problem, KernelConfig>>& tuned,
                                          const Problem& problem, std::size_t count);

}  // namespace cl2
