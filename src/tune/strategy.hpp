#pragma once
// Search strategies: which candidates a shape gets and how they are timed. Every strategy ends the
// same way (verified candidates, the close ones settled side by side under the final rule, the
// fastest there wins); they differ in what reaches that point:
//   model       the cost model's cheapest --max-candidates, each screened (the default);
//   race        4x as many from the model, each timed briefly (verified first, like every trial),
//               the best eighth screened: successive halving, more variants seen for little more
//               GPU time than `model` screens;
//   seeded      `model` with the winners of the nearest tuned shapes first (--seeds, or a quarter
//               of the slots);
//   random      --max-candidates drawn at random from every variant the families plan (the cost
//               model's ordering ablated);
//   exhaustive  every variant the families plan, each screened.
#include <cstddef>
#include <string>

#include "search/candidates.hpp"

namespace cl2 {

enum class Strategy { Model, Race, Seeded, Random, Exhaustive };

// Throws UserError naming the text and the strategies.
Strategy parse_strategy(const std::string& text);
std::string to_string(Strategy strategy);

struct SearchPlan {
  std::size_t planned = 0;      // candidates planned per shape (0 = every planned variant)
  std::size_t seeds = 0;        // of those, winners of the nearest tuned shapes, first
  PlanOrder order = PlanOrder::Model;
  std::size_t screened = 0;     // race: how many of the raced candidates are screened (0 = no race)
  std::size_t family_share = kFamilyShare;  // each family guaranteed 1/(share x families) of the plan
};

// `max_candidates` and `seeds` as given on the command line (seeds 0 = not given).
SearchPlan search_plan(Strategy strategy, std::size_t max_candidates, std::size_t seeds);

}  // namespace cl2
