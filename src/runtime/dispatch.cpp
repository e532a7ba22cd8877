#include "runtime/dispatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "search/seeds.hpp"

namespace cl2 {

namespace {

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

bool same_kind(const Problem& x, const Problem& y) { return x.layout == y.layout && x.accum == y.accum; }

}  // namespace

std::string_view to_string(Route route) {
  switch (route) {
    case Route::OursExact: return "ours_exact";
    case Route::OursNearest: return "ours_nearest";
    case Route::OursPlanned: return "ours_planned";
    case Route::LibraryRecorded: return "cublaslt_recorded";
    case Route::LibraryHeuristic: return "cublaslt_heuristic";
  }
  return "unknown";
}

namespace {

// A configuration the cost model ranks for an untuned shape, and the tuned entry whose cubin runs it.
struct Option {
  const DispatchEntry* entry;
  std::size_t nearness;  // 1 for the nearest winner ranked, 2 for the next...
  KernelConfig config;
  double model_us;
};

// "first", "2nd", "3rd", "4th"...: a configuration's place in the model's ranking.
std::string rank_text(std::size_t rank) {
  if (rank == 1) return "first";
  const std::size_t tens = rank % 100, units = rank % 10;
  if (tens >= 11 && tens <= 13) return fmt::format("{}th", rank);
  return fmt::format("{}{}", rank, units == 1 ? "st" : units == 2 ? "nd" : units == 3 ? "rd" : "th");
}

Decision nearest_decision(const Option& option, std::size_t ranked, std::size_t model_rank) {
  std::string rechosen;
  for (const auto& [name, value] : option.config.params)
    if (option.entry->config.at(name) != value)
      rechosen += fmt::format(", {} {} -> {}", name, option.entry->config.at(name), value);
  return {Route::OursNearest, option.entry,
          fmt::format("ours nearest (tuned at {}: winner {} of the {} nearest, model-ranked {} at {:.1f} us{}): {}",
                      option.entry->problem.shape.text(), option.nearness, ranked, rank_text(model_rank),
                      option.model_us, rechosen, option.config.label()),
          option.config};
}

// The winners of the nearest tuned shapes, each with its split-K variants, in the model's order;
// equal estimates keep the nearer shape, and a winner's own split-K.
std::vector<Decision> nearest_decisions(const DispatchTable& table, const Problem& problem, const FamilyRules& rules) {
  std::vector<std::pair<Problem, KernelConfig>> tuned;
  tuned.reserve(table.entries.size());
  for (const DispatchEntry& entry : table.entries) tuned.emplace_back(entry.problem, entry.config);
  std::vector<Option> options;
  std::vector<const KernelConfig*> seen;
  std::size_t ranked = 0;
  // The entry itself, not the first with its configuration: a configuration that won at several
  // shapes is named as tuned at the nearest of them.
  for (const std::size_t i : nearest_tuned(tuned, problem)) {
    if (ranked == kRankedWinners) break;
    const DispatchEntry& entry = table.entries[i];
    if (std::any_of(seen.begin(), seen.end(), [&](const KernelConfig* c) { return *c == entry.config; })) continue;
    seen.push_back(&entry.config);
    if (!rules.allows(entry.config, problem)) continue;
    const std::optional<double> cost = rules.model_us(entry.config, problem);
    if (!cost) continue;
    ++ranked;
    options.push_back({&entry, ranked, entry.config, *cost});
    for (KernelConfig& variant : rules.split_k_variants(entry, problem))
      if (const std::optional<double> variant_cost = rules.model_us(variant, problem))
        options.push_back({&entry, ranked, std::move(variant), *variant_cost});
  }
  if (options.empty())
    return {{Route::LibraryHeuristic, nullptr,
             table.entries.empty() ? "cublaslt heuristic: nothing tuned for this GPU"
                                   : "cublaslt heuristic: no tuned configuration is valid for this shape",
             {}}};
  std::stable_sort(options.begin(), options.end(),
                   [](const Option& x, const Option& y) { return x.model_us < y.model_us; });
  std::vector<Decision> decisions;
  decisions.reserve(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) decisions.push_back(nearest_decision(options[i], ranked, i + 1));
  return decisions;
}

}  // namespace

std::string_view chosen_by(const Decision& decision) {
  switch (decision.route) {
    case Route::OursExact: return "exact";
    case Route::OursNearest: return decision.timed_us.empty() ? "nearest-model" : "nearest-timed";
    case Route::OursPlanned: return "planned-timed";
    case Route::LibraryRecorded:
    case Route::LibraryHeuristic: return "library";
  }
  return "unknown";
}

std::vector<Decision> ranked_decisions(const DispatchTable& table, const Problem& problem, bool ours_allowed,
                                       const FamilyRules& rules) {
  const DispatchEntry* exact = nullptr;
  for (const DispatchEntry& entry : table.entries)
    if (entry.problem.shape == problem.shape && same_kind(entry.problem, problem)) exact = &entry;
  if (exact && exact->library_faster())
    return {{Route::LibraryRecorded, exact,
             fmt::format("cublaslt recorded: {} ({:.2f} us vs ours {:.2f} us)",
                         lt_algo_summary(exact->library_algo, "-"), exact->library_us, exact->ours_us),
             {}}};
  if (!ours_allowed)
    return {{Route::LibraryHeuristic, nullptr,
             "cublaslt heuristic: leading dimensions or alignment that our kernels were not verified with", {}}};
  if (exact && rules.allows(exact->config, problem))
    return {{Route::OursExact, exact, fmt::format("ours exact: {}", exact->config.label()), exact->config}};
  return nearest_decisions(table, problem, rules);
}

Decision planned_decision(const DispatchEntry& entry, std::size_t rank, double model_us) {
  return {Route::OursPlanned, &entry,
          fmt::format("ours planned at this shape (the {} of tune's plan here that compiled clean, model {:.1f} us; "
                      "compiled at the first call): {}",
                      rank_text(rank), model_us, entry.config.label()),
          entry.config};
}

Decision decide(const DispatchTable& table, const Problem& problem, bool ours_allowed, const FamilyRules& rules) {
  return ranked_decisions(table, problem, ours_allowed, rules).front();
}

bool operands_fit_our_kernels(const Problem& problem, const void* a, long long lda, const void* b, long long ldb,
                              const void* c, long long ldc) {
  const GemmShape& s = problem.shape;
  const long long tight_ldb = problem.layout == Layout::TN ? s.k : s.n;
  return lda == s.k && ldb == tight_ldb && ldc == s.n && aligned16(a) && aligned16(b) && aligned16(c);
}

}  // namespace cl2
