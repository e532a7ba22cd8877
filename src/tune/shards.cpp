#include "tune/shards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "core/errors.hpp"
#include "core/parallel_for.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

namespace {

// Estimated microseconds of tuning work for a shape: setting it up and timing the libraries, then
// per candidate a fixed cost plus its timing rounds (about 60 launches, capped as the screening
// rule caps them).
double tuning_weight_us(const std::vector<Candidate>& plan) {
  double weight = 1e6;
  for (const auto& c : plan) weight += 2e4 + std::min(2.5e5, 60.0 * c.cost_us);
  return weight;
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  ShardSpec spec;
  const std::size_t slash = text.find('/');
  const auto parse = [&](std::size_t begin, std::size_t end, int& out) {
    const auto [ptr, ec] = std::from_chars(text.data() + begin, text.data() + end, out);
    return ec == std::errc() && ptr == text.data() + end && begin < end;
  };
  if (slash == std::string::npos || !parse(0, slash, spec.index) || !parse(slash + 1, text.size(), spec.count) ||
      spec.count < 1 || spec.index < 0 || spec.index >= spec.count)
    throw UserError(fmt::format("--shard {}: expected I/N with 0 <= I < N, e.g. --shard 0/4 for the first "
                                "of four machines",
                                text));
  return spec;
}

std::vector<std::size_t> shard_members(const std::vector<double>& weights, const ShardSpec& spec) {
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  std::vector<double> load(std::size_t(spec.count), 0.0);
  std::vector<std::size_t> members;
  for (const std::size_t i : order) {
    const auto lightest = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[lightest] += weights[i];
    if (lightest == std::size_t(spec.index)) members.push_back(i);
  }
  std::sort(members.begin(), members.end());
  return members;
}

std::vector<Problem> select_shard(const std::vector<Problem>& problems,
                                  const std::vector<const FamilySpec*>& families,
                                  std::size_t max_candidates, std::size_t family_share, const ShardSpec& spec) {
  if (spec.count == 1) return problems;
  const DeviceLimits reference = limits_for_arch("sm_90a");
  std::vector<double> weights(problems.size());
  parallel_for(problems.size(), 0, [&](std::size_t i) {
    try {
      weights[i] = tuning_weight_us(plan_candidates(families, problems[i], reference, max_candidates, {}, {},
                                                              PlanOrder::Model, family_share));
    } catch (const UserError&) {
      weights[i] = 1e6;  // no variant applies on the reference GPU; the shard's own GPU decides
    }
  });
  std::vector<Problem> selected;
  for (const std::size_t i : shard_members(weights, spec)) selected.push_back(problems[i]);
  return selected;
}

}  // namespace cl2
