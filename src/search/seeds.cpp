#include "search/seeds.hpp"

#include <algorithm>
#include <cmath>

namespace cl2 {

std::vector<KernelConfig> nearest_winners(const std::vector<std::pair<Problem, KernelConfig>>& tuned,
                                          const Problem& problem, std::size_t count) {
  auto distance = [&](const Problem& other) {
    const double dm = std::log2(double(other.shape.m) / double(problem.shape.m));
    const double dn = std::log2(double(other.shape.n) / double(problem.shape.n));
    const double dk = std::log2(double(other.shape.k) / double(problem.shape.k));
    return dm * dm + dn * dn + dk * dk;
  };
  std::vector<std::pair<double, const KernelConfig*>> near;
  for (const auto& [other, config] : tuned)
    if (other.layout == problem.layout && other.accum == problem.accum) near.emplace_back(distance(other), &config);
  // Equal distances keep the order of `tuned`, so the seeds are the same on every machine.
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<KernelConfig> seeds;
  for (const auto& [d, config] : near) {
    if (seeds.size() >= count) break;
    if (std::find(seeds.begin(), seeds.end(), *config) == seeds.end()) seeds.push_back(*config);
  }
  return seeds;
}

}  // namespace cl2
