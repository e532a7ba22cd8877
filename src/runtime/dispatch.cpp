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

// The model's choice among the winners of the nearest tuned shapes, each with its split-K variants;
// equal estimates keep the nearer shape, and a winner's own split-K.
Decision nearest_decision(const DispatchTable& table, const Problem& problem, const FamilyRules& rules) {
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
    return {Route::LibraryHeuristic, nullptr,
            table.entries.empty() ? "cublaslt heuristic: nothing tuned for this GPU"
                                  : "cublaslt heuristic: no tuned configuration is valid for this shape",
            {}};
  const Option& best = *std::min_element(options.begin(), options.end(),
                                         [](const Option& x, const Option& y) { return x.model_us < y.model_us; });
  std::string rechosen;
  for (const auto& [name, value] : best.config.params)
    if (best.entry->config.at(name) != value)
      rechosen += fmt::format(", {} {} -> {}", name, best.entry->config.at(name), value);
  return {Route::OursNearest, best.entry,
          fmt::format("ours nearest (tuned at {}: winner {} of the {} nearest, model-ranked first at {:.1f} us{}): {}",
                      best.entry->problem.shape.text(), best.nearness, ranked, best.model_us, rechosen,
                      best.config.label()),
          best.config};
}

}  // namespace

Decision decide(const DispatchTable& table, const Problem& problem, bool ours_allowed, const FamilyRules& rules) {
  const DispatchEntry* exact = nullptr;
  for (const DispatchEntry& entry : table.entries)
    if (entry.problem.shape == problem.shape && same_kind(entry.problem, problem)) exact = &entry;
  if (exact && exact->library_faster())
    return {Route::LibraryRecorded, exact,
            fmt::format("cublaslt recorded: {} ({:.2f} us vs ours {:.2f} us)",
                        lt_algo_summary(exact->library_algo, "-"), exact->library_us, exact->ours_us),
            {}};
  if (!ours_allowed)
    return {Route::LibraryHeuristic, nullptr,
            "cublaslt heuristic: leading dimensions or alignment that our kernels were not verified with", {}};
  if (exact && rules.allows(exact->config, problem))
    return {Route::OursExact, exact, fmt::format("ours exact: {}", exact->config.label()), exact->config};
  return nearest_decision(table, problem, rules);
}

bool operands_fit_our_kernels(const Problem& problem, const void* a, long long lda, const void* b, long long ldb,
                              const void* c, long long ldc) {
  const GemmShape& s = problem.shape;
  const long long tight_ldb = problem.layout == Layout::TN ? s.k : s.n;
  return lda == s.k && ldb == tight_ldb && ldc == s.n && aligned16(a) && aligned16(b) && aligned16(c);
}

}  // namespace cl2
