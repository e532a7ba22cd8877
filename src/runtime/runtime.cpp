#include "runtime/runtime.hpp"

#include <fmt/format.h>

#include <limits>

#include "runtime/runtime_error.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

namespace {

void check_arguments(const GemmCall& call) {
  const GemmShape& s = call.problem.shape;
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  auto invalid = [&](const std::string& what) {
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT, fmt::format("cl2_gemm {} {}: {}", s.text(),
                                                               to_string(call.problem.layout), what));
  };
  if (s.m < 1 || s.n < 1 || s.k < 1) invalid("M, N and K must be at least 1");
  if (s.m > kMax || s.n > kMax || s.k > kMax) invalid("M, N and K must be below 2^31");
  if (!call.a || !call.b || !call.c) invalid("A, B and C must not be null");
  const std::int64_t b_row = call.problem.layout == Layout::TN ? s.k : s.n;
  if (call.lda < s.k) invalid(fmt::format("lda {} is smaller than K; pass lda >= K", call.lda));
  if (call.ldb < b_row)
    invalid(fmt::format("ldb {} is smaller than a row of B ({}); pass ldb >= {}", call.ldb, b_row, b_row));
  if (call.ldc < s.n) invalid(fmt::format("ldc {} is smaller than N; pass ldc >= N", call.ldc));
  if (call.lda > kMax || call.ldb > kMax || call.ldc > kMax) invalid("leading dimensions must be below 2^31");
}

}  // namespace

Runtime::Runtime(DispatchTable table, const DeviceLimits& device, std::unique_ptr<GemmBackend> backend,
                 bool library_only)
    : table_(std::move(table)),
      device_(device),
      rules_(device),
      backend_(std::move(backend)),
      library_only_(library_only) {}

const Runtime::Plan& Runtime::plan(const Problem& problem, bool ours_allowed) {
  const auto key = std::make_tuple(problem.shape.m, problem.shape.n, problem.shape.k, problem.layout,
                                   problem.accum, ours_allowed);
  if (auto found = plans_.find(key); found != plans_.end()) return found->second;
  Plan made;
  if (library_only_)
    made.decision = {Route::LibraryHeuristic, nullptr, "cublaslt heuristic: tuned on another GPU", {}};
  else made.decision = decide(table_, problem, ours_allowed, rules_);
  if (made.decision.ours()) {
    const KernelConfig& config = made.decision.config;
    const FamilySpec& family = builtin_families().at(config.family);
    made.geometry = launch_geometry(family, config_variables(family, config, problem, device_));
  }
  return plans_.emplace(key, std::move(made)).first->second;
}

const Decision& Runtime::gemm(const GemmCall& call) {
  check_arguments(call);
  const bool ours_allowed = operands_fit_our_kernels(call.problem, call.a, call.lda, call.b, call.ldb, call.c,
                                                     call.ldc);
  const Plan* chosen = nullptr;
  {
    const std::lock_guard lock(mutex_);
    chosen = &plan(call.problem, ours_allowed);
  }
  const Decision& decision = chosen->decision;
  if (decision.ours()) backend_->run_kernel(*decision.entry, chosen->geometry, call);
  else
    backend_->run_library(call, decision.route == Route::LibraryRecorded ? &*decision.entry->library_algo : nullptr);
  return decision;
}

const Decision& Runtime::describe(const Problem& problem) {
  const std::lock_guard lock(mutex_);
  return plan(problem, true).decision;
}

}  // namespace cl2
