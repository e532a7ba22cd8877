#pragma once
// Dispatch tables for the runtime tests: entries of real sm90 configurations (valid where the
// family's rules say so on an H200's limits), found by enumerating the family once per problem.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "codegen/codegen.hpp"
#include "runtime/dispatch_table.hpp"
#include "runtime/family_rules.hpp"
#include "search/candidates.hpp"
#include "search/family_spec.hpp"

namespace cl2_test {

inline const cl2::DeviceLimits& h200_limits() {
  static const cl2::DeviceLimits limits = cl2::limits_for_arch("sm_90a");
  return limits;
}

// The built-in families' rules on an H200, uncalibrated: what the runtime dispatches by there.
inline const cl2::FamilyRules& h200_rules() {
  static const cl2::FamilyRules rules(h200_limits());
  return rules;
}

inline cl2::Problem tn(std::int64_t m, std::int64_t n, std::int64_t k, cl2::Layout layout = cl2::Layout::TN) {
  return {{m, n, k}, layout, cl2::Accum::F32};
}

// The first sm90 configuration for `problem` that `pick` accepts, as tune would plan it there (every
// rule holds); fails the test where none is. The search is over 64x64 tiles of one consumer without
// clusters, split-K or stream-K (the whole space takes seconds to enumerate); pipeline depth and
// KB_PAIR vary. `pins` replaces some of those fixed values (a wider tile, a split-K factor).
inline cl2::KernelConfig sm90_config(const cl2::Problem& problem,
                                     const std::function<bool(const cl2::KernelConfig&)>& pick,
                                     const std::map<std::string, std::int64_t>& pins = {}) {
  std::map<std::string, std::int64_t> fixed = {
      {"BM", 64}, {"BN", 64}, {"CONSUMERS", 1}, {"ACC_CHAINS", 1}, {"PINGPONG", 0}, {"WG_KSPLIT", 0},
      {"CLUSTER_M", 1}, {"CLUSTER_N", 1}, {"EPI_TMA", 0}, {"STREAM_K", 0}, {"SWAP_AB", 0}, {"PERSISTENT", 0},
      {"SPLIT_K", 1}, {"RASTER", 1}, {"SPLIT_DSMEM", 0}};
  for (const auto& [name, value] : pins) fixed[name] = value;
  // Each parameter's domain cut to its fixed value; unlike pin_family, the planning rules stay.
  cl2::FamilySpec family = cl2::builtin_families().at("sm90");
  for (const auto& [name, value] : fixed) family.params.at(name) = {value};
  for (const auto& candidate : cl2::enumerate_family(family, problem, h200_limits()))
    if (pick(candidate.config)) return candidate.config;
  ADD_FAILURE() << "no sm90 configuration for " << problem.text() << " fits the test's pick";
  return {};
}

inline bool any_config(const cl2::KernelConfig&) { return true; }

inline cl2::DispatchEntry entry(const cl2::Problem& problem, const cl2::KernelConfig& config, double ours_us = 10,
                                double library_us = 12, std::optional<cl2::LtAlgoConfig> algo = std::nullopt) {
  cl2::DispatchEntry e;
  e.problem = problem;
  e.config = config;
  e.source_hash = "h" + std::to_string(std::hash<std::string>{}(config.to_json()) % 100000);
  e.arch = "sm_90a";
  e.ours_us = ours_us;
  e.library_us = library_us;
  e.library_algo = algo;
  return e;
}

// An entry whose source hash is its generated source's, as tune records it: the runtime runs
// another split-K factor of it only where that hash says the cubin is the same.
inline cl2::DispatchEntry tuned_entry(const cl2::Problem& problem, const cl2::KernelConfig& config) {
  cl2::DispatchEntry e = entry(problem, config);
  e.source_hash =
      cl2::generate_source(cl2::builtin_families().at(config.family), config, problem.layout, problem.accum).hash;
  return e;
}

inline cl2::LtAlgoConfig lt_algo() { return {66, "64x32", "64xAUTO", 1, "none", 0, 3, "1x2x1"}; }

}  // namespace cl2_test
