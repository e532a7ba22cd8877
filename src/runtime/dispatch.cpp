#include "runtime/dispatch.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "search/candidates.hpp"
#include "search/family_spec.hpp"
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

ConfigCheck family_rules_check(const DeviceLimits& device) {
  return [device](const DispatchEntry& entry, const Problem& problem) {
    // The kernel ABI passes M, N and K as int.
    constexpr std::int64_t kMax = std::numeric_limits<int>::max();
    if (problem.shape.m > kMax || problem.shape.n > kMax || problem.shape.k > kMax) return false;
    const auto& families = builtin_families();
    const auto family = families.find(entry.config.family);
    if (family == families.end()) return false;
    try {
      const ExprVariables vars = config_variables(family->second, entry.config, problem, device);
      for (const Constraint& constraint : family->second.constraints)
        if (!constraint.planning && !as_bool(constraint.rule.eval(vars))) return false;
      return true;
    } catch (const std::exception&) {
      return false;  // a parameter this build's family no longer has, or a rule that cannot be evaluated
    }
  };
}

Decision decide(const DispatchTable& table, const Problem& problem, bool ours_allowed, const ConfigCheck& allowed) {
  const DispatchEntry* exact = nullptr;
  for (const DispatchEntry& entry : table.entries)
    if (entry.problem.shape == problem.shape && same_kind(entry.problem, problem)) exact = &entry;
  if (exact && exact->library_faster())
    return {Route::LibraryRecorded, exact,
            fmt::format("cublaslt recorded: {} ({:.2f} us vs ours {:.2f} us)",
                        lt_algo_summary(exact->library_algo, "-"), exact->library_us, exact->ours_us)};
  if (!ours_allowed)
    return {Route::LibraryHeuristic, nullptr,
            "cublaslt heuristic: leading dimensions or alignment that our kernels were not verified with"};
  if (exact && allowed(*exact, problem))
    return {Route::OursExact, exact, fmt::format("ours exact: {}", exact->config.label())};

  std::vector<std::pair<Problem, KernelConfig>> tuned;
  tuned.reserve(table.entries.size());
  for (const DispatchEntry& entry : table.entries) tuned.emplace_back(entry.problem, entry.config);
  // The entry itself, not the first with its configuration: a configuration that won at several
  // shapes was reported as tuned at whichever of them the table listed first.
  for (const std::size_t i : nearest_tuned(tuned, problem)) {
    const DispatchEntry& entry = table.entries[i];
    if (allowed(entry, problem))
      return {Route::OursNearest, &entry,
              fmt::format("ours nearest (tuned at {}): {}", entry.problem.shape.text(), entry.config.label())};
  }
  return {Route::LibraryHeuristic, nullptr,
          table.entries.empty() ? "cublaslt heuristic: nothing tuned for this GPU"
                                : "cublaslt heuristic: no tuned configuration is valid for this shape"};
}

bool operands_fit_our_kernels(const Problem& problem, const void* a, long long lda, const void* b, long long ldb,
                              const void* c, long long ldc) {
  const GemmShape& s = problem.shape;
  const long long tight_ldb = problem.layout == Layout::TN ? s.k : s.n;
  return lda == s.k && ldb == tight_ldb && ldc == s.n && aligned16(a) && aligned16(b) && aligned16(c);
}

}  // namespace cl2
