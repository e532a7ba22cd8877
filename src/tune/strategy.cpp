#include "tune/strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "core/errors.hpp"

namespace cl2 {

namespace {

constexpr std::array<std::pair<Strategy, const char*>, 5> kNames = {{{Strategy::Model, "model"},
                                                                     {Strategy::Race, "race"},
                                                                     {Strategy::Seeded, "seeded"},
                                                                     {Strategy::Random, "random"},
                                                                     {Strategy::Exhaustive, "exhaustive"}}};

// Race widths: starting values, to be settled by scripts/ablation.sh on a GPU. Brief timing costs
// about a fifth of screening on small kernels (screening ran its 60-sample cap on most grid-125
// shapes), so 4x the candidates raced with an eighth screened costs about 1.3x `model`'s timing.
constexpr std::size_t kRaceWidth = 4;
constexpr std::size_t kRaceScreenedShare = 8;
// A race guarantees each family an eighth of its list, not the quarter a screened list does: the
// guarantee keeps a family the model underrates in the running, and a quarter of a race's 80 gave
// sm80 20 slots on shapes it never wins. On an H100's strategy check (grid-125-sample30 against a
// race of 128, db/results/h100-strategy-check-retuned/) the race of 20 with the fitted factors held
// 27 of 30 shapes within 2% with a quarter and 29 with an eighth (1024x64x12288 0.921 -> within,
// its best tile and split-K 4 among the slots sm80 had held).
constexpr std::size_t kRaceFamilyShare = 4;

}  // namespace

Strategy parse_strategy(const std::string& text) {
  for (const auto& [strategy, name] : kNames)
    if (text == name) return strategy;
  throw UserError(fmt::format("--strategy {}: expected model, race, seeded, random or exhaustive", text));
}

std::string to_string(Strategy strategy) {
  for (const auto& [s, name] : kNames)
    if (s == strategy) return name;
  return "model";
}

SearchPlan search_plan(Strategy strategy, std::size_t max_candidates, std::size_t seeds) {
  SearchPlan plan{max_candidates, seeds, PlanOrder::Model, 0};
  switch (strategy) {
    case Strategy::Model:
      break;
    case Strategy::Race:
      if (max_candidates == 0) break;  // every variant is planned anyway: screen them all
      plan.planned = kRaceWidth * max_candidates;
      plan.screened = std::max<std::size_t>(2, plan.planned / kRaceScreenedShare);
      plan.family_share = kRaceFamilyShare;
      break;
    case Strategy::Seeded:
      if (seeds == 0) plan.seeds = std::max<std::size_t>(1, max_candidates / 4);
      break;
    case Strategy::Random:
      plan.order = PlanOrder::Random;
      plan.seeds = 0;
      break;
    case Strategy::Exhaustive:
      plan.planned = 0;
      break;
  }
  return plan;
}

}  // namespace cl2
