#include "search/seeds.hpp"

#include <algorithm>
#include <cmath>

namespace cl2 {

std::vector<std::size_t> nearest_tuned(const std::vector<std::pair<Problem, KernelConfig>>& tuned,
                                       const Problem& problem) {
  auto distance = [&](const Problem& other) {
    const double dm = std::log2(double(other.shape.m) / double(problem.shape.m));
    const double dn = std::log2(double(other.shape.n) / double(problem.shape.n));
    const double dk = std::log2(double(other.shape.k) / double(problem.shape.k));
    return dm * dm + dn * dn + dk * dk;
  };
  std::vector<std::pair<double, std::size_t>> near;
  for (std::size_t i = 0; i < tuned.size(); ++i)
    if (tuned[i].first.layout == problem.layout && tuned[i].first.accum == problem.accum)
      near.emplace_back(distance(tuned[i].first), i);
  // Equal distances keep the order of `tuned`, so the seeds are the same on every machine.
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::size_t> order;
  for (const auto& [d, i] : near) order.push_back(i);
  return order;
}

std::vector<KernelConfig> nearest_winners(const std::vector<std::pair<Problem, KernelConfig>>& tuned,
                                          const Problem& problem, std::size_t count) {
  std::vector<KernelConfig> seeds;
  for (const std::size_t i : nearest_tuned(tuned, problem)) {
    if (seeds.size() >= count) break;
    const KernelConfig& config = tuned[i].second;
    if (std::find(seeds.begin(), seeds.end(), config) == seeds.end()) seeds.push_back(config);
  }
  return seeds;
}

}  // namespace cl2
