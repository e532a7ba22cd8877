#pragma once
// Enumerates a family's space for one problem on one device: every parameter combination that
// meets the family's constraints, with its launch geometry and modelled cost, cheapest first.
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

// Candidates per shape that tune plans unless --max-candidates says otherwise.
constexpr std::size_t kDefaultMaxCandidates = 24;

struct TensorMapBox {
  std::string operand;  // "a", "b" or "c"
  int box_inner = 0, box_outer = 0, swizzle_bytes = 0;
  int box_depth = 0;  // 0: 2-D; d > 0: 3-D over 64-wide atoms of the inner extent, d atoms per box
  bool operator==(const TensorMapBox&) const = default;
};

struct LaunchGeometry {
  int threads = 0;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<int, 3> cluster{1, 1, 1};
  std::int64_t smem_bytes = 0;
  std::int64_t workspace_bytes = 0;
  // Launched with programmatic stream serialization: the kernel may start while the previous one
  // of its stream finishes (the kernel waits for it before touching what that one may write).
  bool programmatic = false;
  std::vector<TensorMapBox> tensor_maps;
  std::map<std::string, std::int64_t> runtime;  // Cl2GemmParams field -> value
  bool operator==(const LaunchGeometry&) const = default;
};

struct Candidate {
  const FamilySpec* family = nullptr;
  KernelConfig config;
  LaunchGeometry launch;
  double cost_us = 0;
};

// Problem and device variables every expression may use, plus the config's params (one it lacks at
// the family's `absent` value, where it has one) and defines.
ExprVariables config_variables(const FamilySpec& family, const KernelConfig& config,
                               const Problem& problem, const DeviceLimits& device);

LaunchGeometry launch_geometry(const FamilySpec& family, const ExprVariables& vars);

// Per rule of the family, whether it holds for `vars` (one that cannot be evaluated does not).
std::vector<bool> rules_met(const FamilySpec& family, const ExprVariables& vars);

// Whether every correctness rule (the planning-only ones left out) holds, from rules_met's answer.
bool correctness_rules_met(const FamilySpec& family, const std::vector<bool>& met);

// Per constraint of the family (in its order), the parameters the rule reads, directly or through
// the defines and derived values it reads.
std::vector<std::set<std::string>> constraint_params(const FamilySpec& family);

// All valid configs of `family` for the problem, cheapest modelled cost first (ties broken by the
// config text, so the order is deterministic). `rejections` counts, per constraint text, how many
// combinations it removed.
std::vector<Candidate> enumerate_family(const FamilySpec& family, const Problem& problem,
                                        const DeviceLimits& device,
                                        std::map<std::string, std::int64_t>* rejections = nullptr);

// How a plan ranks a shape's variants before the cut: by the cost model, or in an order drawn at
// random (the same for a shape in every run), for measuring what the model is worth.
enum class PlanOrder { Model, Random };

// Each family's share of a plan: its cheapest candidates of distinct diversity keys are guaranteed
// max(2, max_candidates / (share x the families that run)) slots, a quarter of the list each when two
// families share it (kFamilyShare 2), an eighth under a race (search/strategy.hpp says why).
inline constexpr std::size_t kFamilyShare = 2;

// The candidates to try for a problem: the union of the families' valid configs, cheapest first,
// cut to `max_candidates` (0 = all): each family's cheapest distinct candidates (by the family's
// diversity params; how many: `family_share`), then the cheapest of every distinct combination,
// then the rest by cost. Throws UserError when no family has a valid config, naming the constraint
// that removed the most.
// Configs in `excluded` (KernelConfig::to_json texts: variants known not to compile clean) are left
// out before the cut, so the slots they would take go to the next candidates. Those of `seeds` that
// are valid for the problem take the first slots, in the order given (search/seeds.hpp), each
// matched as with_absent_params completes it. Under
// PlanOrder::Random, "cheapest" reads "first in the drawn order" throughout. Beyond the cut, a
// family with a twin (FamilySpec::twin) adds the twins of its first candidates, each right after
// its original, so that timing decides what the model cannot.
std::vector<Candidate> plan_candidates(const std::vector<const FamilySpec*>& families,
                                       const Problem& problem, const DeviceLimits& device,
                                       std::size_t max_candidates,
                                       const std::set<std::string>& excluded = {},
                                       const std::vector<KernelConfig>& seeds = {},
                                       PlanOrder order = PlanOrder::Model,
                                       std::size_t family_share = kFamilyShare);

// `config` as its family plans it now: each parameter the family has added since an older version
// tuned it (a winner read back from an older database) filled in at the family's `absent` value,
// what its absence meant then (sm90's PDL = 0). A config of another family comes back unchanged.
KernelConfig with_absent_params(const FamilySpec& family, KernelConfig config);

// Whether some variant of `family` is valid for `problem` on `device`: the enumeration stops at
// the first, so a shape that has one costs a small part of planning it.
bool family_applies(const FamilySpec& family, const Problem& problem, const DeviceLimits& device);

}  // namespace cl2
