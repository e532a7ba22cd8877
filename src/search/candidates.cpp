#include "search/candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/errors.hpp"
#include "core/hash.hpp"
#include "search/cost_model.hpp"

namespace cl2 {

namespace {

void add_problem_variables(ExprVariables& vars, const Problem& problem) {
  vars["M"] = problem.shape.m;
  vars["N"] = problem.shape.n;
  vars["K"] = problem.shape.k;
  vars["LAYOUT_TN"] = std::int64_t(problem.layout == Layout::TN);
  vars["ACCUM_F16"] = std::int64_t(problem.accum == Accum::F16);
  // 1 where each timed call finds its operands in DRAM (rotate, flush), 0 where what fits stays in
  // the L2 from the previous call (warm).
  vars["L2_COLD"] = std::int64_t(problem.l2 != L2Policy::Warm);
  // 1 where calls run back to back, each on its own copy of the operands (consecutive layers).
  vars["L2_ROTATE"] = std::int64_t(problem.l2 == L2Policy::Rotate);
}

std::int64_t eval_int(const Expr& expr, const ExprVariables& vars) { return as_int(expr.eval(vars)); }

std::string diversity_key(const Candidate& c) {
  std::string key = c.family->name;
  for (const auto& name : c.family->diversity) key += fmt::format(" {}", c.config.at(name));
  return key;
}

}  // namespace

ExprVariables config_variables(const FamilySpec& family, const KernelConfig& config,
                               const Problem& problem, const DeviceLimits& device) {
  ExprVariables vars;
  add_problem_variables(vars, problem);
  device.add_to(vars);
  for (const auto& [name, value] : config.params) vars[name] = value;
  for (const auto& [name, value] : family.absent)
    if (!config.params.count(name)) vars[name] = value;
  for (const auto& [name, expr] : family.defines) vars[name] = expr.eval(vars);
  for (const auto& [name, expr] : family.derived) vars[name] = expr.eval(vars);
  return vars;
}

LaunchGeometry launch_geometry(const FamilySpec& family, const ExprVariables& vars) {
  LaunchGeometry g;
  g.threads = int(eval_int(family.launch.threads, vars));
  for (int i = 0; i < 3; ++i) {
    g.grid[i] = eval_int(family.launch.grid[i], vars);
    g.cluster[i] = int(eval_int(family.launch.cluster[i], vars));
  }
  g.smem_bytes = eval_int(family.launch.smem_bytes, vars);
  g.workspace_bytes = eval_int(family.launch.workspace_bytes, vars);
  g.programmatic = as_bool(family.launch.programmatic.eval(vars));
  for (const auto& tm : family.tensor_maps) {
    if (tm.when && !as_bool(tm.when->eval(vars))) continue;
    g.tensor_maps.push_back({tm.operand, int(eval_int(tm.box_inner, vars)), int(eval_int(tm.box_outer, vars)),
                             int(eval_int(tm.swizzle_bytes, vars)), int(eval_int(tm.box_depth, vars))});
  }
  for (const auto& [param, field] : family.runtime_params)
    g.runtime[field] = as_int(vars.at(param));
  return g;
}

std::vector<bool> rules_met(const FamilySpec& family, const ExprVariables& vars) {
  std::vector<bool> met;
  met.reserve(family.constraints.size());
  for (const Constraint& constraint : family.constraints) {
    try {
      met.push_back(as_bool(constraint.rule.eval(vars)));
    } catch (const std::exception&) {
      met.push_back(false);
    }
  }
  return met;
}

bool correctness_rules_met(const FamilySpec& family, const std::vector<bool>& met) {
  for (std::size_t i = 0; i < met.size(); ++i)
    if (!met[i] && !family.constraints[i].planning) return false;
  return true;
}

std::vector<std::set<std::string>> constraint_params(const FamilySpec& family) {
  std::map<std::string, std::set<std::string>> params_of;  // define -> parameters it reads
  const auto params_read = [&](const Expr& expr) {
    std::set<std::string> out;
    for (const auto& name : expr.names()) {
      if (family.params.count(name)) out.insert(name);
      if (auto it = params_of.find(name); it != params_of.end()) out.insert(it->second.begin(), it->second.end());
    }
    return out;
  };
  for (const auto* named : {&family.defines, &family.derived})
    for (const auto& [name, expr] : *named) params_of[name] = params_read(expr);
  std::vector<std::set<std::string>> out;
  for (const auto& constraint : family.constraints) out.push_back(params_read(constraint.rule));
  return out;
}

namespace {

// Parameters in enumeration order (enumeration_axes), and for each depth the defines and
// constraints whose names are all bound once that parameter is.
// Variables are set by slot (expr_slot) in the inner loop.
struct EnumerationAxis {
  std::string name;
  const std::vector<std::int64_t>* values;
  int slot;
};
struct SlottedDefine {
  const Expr* expr;
  int slot;
};
struct EnumerationPlan {
  std::vector<EnumerationAxis> axes;
  std::vector<std::vector<SlottedDefine>> defines_at;
  std::vector<std::vector<const Constraint*>> constraints_at;
  // Defines no constraint reads, even through other defines (the cost model's terms, launch
  // geometry): evaluated only at leaves that every constraint passed, in the space file's order.
  // Most paths of the tree end at a broken constraint, and evaluating the cost terms on each was
  // most of planning's time.
  std::vector<SlottedDefine> leaf_defines;
};

// Enumeration order, greedily: the next parameter is the one that completes the most constraints'
// parameters, the fewest values first among equals, so rules prune as soon as they can; where none
// completes one, the one with the fewest values. By domain size alone (runtime parameters last)
// the 15 stage counts came before the 21 tile widths that most rules read, those rules ran on every
// stage count, and the 8 split-K factors multiplied every path before their own rules ran: with
// any completing parameter first and the cost terms left to the leaves, planning 1024^3 took 0.2 s
// instead of 11, 2048x8192x512 1.5 s instead of 17. Counting what each completes: sm90's 4 raster
// groups, which complete one rule that hardly prunes, no longer come before the 8 split-K factors,
// which complete a dozen that remove 98% of paths; sm90 over the 211 shapes of grid-125, decode,
// large and quickstart (warm and rotate) planned in 68 s instead of 326, plans identical.
std::vector<EnumerationAxis> enumeration_axes(const FamilySpec& family) {
  const auto rules = constraint_params(family);
  std::vector<bool> complete(rules.size(), false);
  std::set<std::string> bound;
  // Whether rule r reads only bound parameters and `extra`.
  const auto covered = [&](std::size_t r, const std::string& extra) {
    return std::all_of(rules[r].begin(), rules[r].end(), [&](const std::string& p) { return p == extra || bound.count(p); });
  };
  std::vector<EnumerationAxis> left, axes;
  for (const auto& [name, values] : family.params) left.push_back({name, &values, expr_slot(name)});
  while (!left.empty()) {
    const auto completes = [&](const EnumerationAxis& axis) {
      std::size_t count = 0;
      for (std::size_t r = 0; r < rules.size(); ++r)
        if (!complete[r] && rules[r].count(axis.name) && covered(r, axis.name)) ++count;
      return count;
    };
    const auto rank = [&](const EnumerationAxis& axis) {
      const std::size_t count = completes(axis);
      return std::make_tuple(count == 0, std::numeric_limits<std::size_t>::max() - count, axis.values->size());
    };
    auto next = std::min_element(left.begin(), left.end(), [&](const auto& x, const auto& y) { return rank(x) < rank(y); });
    bound.insert(next->name);
    for (std::size_t r = 0; r < rules.size(); ++r) complete[r] = complete[r] || covered(r, "");
    axes.push_back(*next);
    left.erase(next);
  }
  return axes;
}

EnumerationPlan make_plan(const FamilySpec& family) {
  EnumerationPlan plan;
  plan.axes = enumeration_axes(family);
  const std::size_t depth_count = plan.axes.size();
  plan.defines_at.resize(depth_count);
  plan.constraints_at.resize(depth_count);
  std::map<std::string, std::size_t> bound_at;  // name -> depth at which it becomes known
  for (std::size_t d = 0; d < depth_count; ++d) bound_at[plan.axes[d].name] = d;
  auto depth_of = [&](const Expr& expr) {
    std::size_t depth = 0;
    for (const auto& name : expr.names())
      if (auto it = bound_at.find(name); it != bound_at.end()) depth = std::max(depth, it->second);
    return depth;  // names not bound here come from the problem or the device
  };
  // The names constraints read, closed over the defines they go through (a define reads only
  // names declared before it, so one backward pass closes the set).
  std::set<std::string> read_by_constraints;
  for (const auto& constraint : family.constraints) read_by_constraints.merge(constraint.rule.names());
  std::vector<const std::pair<std::string, Expr>*> declared;
  for (const auto* named : {&family.defines, &family.derived})
    for (const auto& define : *named) declared.push_back(&define);
  for (auto it = declared.rbegin(); it != declared.rend(); ++it)
    if (read_by_constraints.count((*it)->first)) read_by_constraints.merge((*it)->second.names());
  for (const auto* define : declared) {
    if (!read_by_constraints.count(define->first)) {
      plan.leaf_defines.push_back({&define->second, expr_slot(define->first)});
      continue;
    }
    const std::size_t d = depth_of(define->second);
    plan.defines_at[d].push_back({&define->second, expr_slot(define->first)});
    bound_at[define->first] = d;
  }
  for (const auto& constraint : family.constraints)
    plan.constraints_at[depth_of(constraint.rule)].push_back(&constraint);
  return plan;
}

struct Enumerator {
  const FamilySpec& family;
  const EnumerationPlan& plan;
  std::map<std::string, std::int64_t>* rejections;
  ExprVariables vars;
  std::vector<std::int64_t> chosen;  // the value of each axis on the current path
  std::vector<Candidate> out;
  bool first_only = false;  // stop at the first valid config

  void visit(std::size_t depth) {
    if (first_only && !out.empty()) return;
    if (depth == plan.axes.size()) {
      for (const SlottedDefine& define : plan.leaf_defines) vars.at_slot(define.slot) = define.expr->eval(vars);
      KernelConfig config{family.name, {}};
      for (std::size_t d = 0; d < plan.axes.size(); ++d) config.params[plan.axes[d].name] = chosen[d];
      out.push_back({&family, std::move(config), launch_geometry(family, vars), model_cost(family, vars)});
      return;
    }
    const EnumerationAxis& axis = plan.axes[depth];
    for (std::int64_t value : *axis.values) {
      chosen[depth] = value;
      vars.at_slot(axis.slot) = value;
      for (const SlottedDefine& define : plan.defines_at[depth]) vars.at_slot(define.slot) = define.expr->eval(vars);
      const Constraint* broken = nullptr;
      for (const Constraint* constraint : plan.constraints_at[depth])
        if (!as_bool(constraint->rule.eval(vars))) {
          broken = constraint;
          break;
        }
      if (broken) {
        if (rejections) ++(*rejections)[broken->why];
        continue;
      }
      visit(depth + 1);
    }
  }
};

// `plan` (cheapest first) with the twins of its families' first candidates (FamilySpec::twin),
// each right after its original: the same variant with the twin value, where the family's
// correctness rules allow it (the planning rules, which steer by the model, do not apply: the twin
// is there because the model cannot tell the two apart), unless excluded or planned already.
std::vector<Candidate> with_twins(std::vector<Candidate> plan, const Problem& problem, const DeviceLimits& device,
                                  const std::set<std::string>& excluded) {
  if (std::none_of(plan.begin(), plan.end(), [](const Candidate& c) { return c.family->twin.has_value(); }))
    return plan;
  std::set<std::string> planned;
  for (const Candidate& c : plan) planned.insert(c.config.to_json());
  std::map<const FamilySpec*, std::size_t> twinned;
  std::vector<Candidate> out;
  for (Candidate& original : plan) {
    const FamilySpec& family = *original.family;
    std::optional<Candidate> twin;
    if (family.twin && original.config.at(family.twin->param) != family.twin->value &&
        twinned[&family] < family.twin->first) {
      ++twinned[&family];
      KernelConfig config = original.config;
      config.params[family.twin->param] = family.twin->value;
      const ExprVariables vars = config_variables(family, config, problem, device);
      const bool allowed = correctness_rules_met(family, rules_met(family, vars));
      const std::string text = config.to_json();
      if (allowed && !excluded.count(text) && planned.insert(text).second)
        twin = Candidate{&family, std::move(config), launch_geometry(family, vars), model_cost(family, vars)};
    }
    out.push_back(std::move(original));
    if (twin) out.push_back(std::move(*twin));
  }
  return out;
}

}  // namespace

std::vector<Candidate> enumerate_family(const FamilySpec& family, const Problem& problem,
                                        const DeviceLimits& device,
                                        std::map<std::string, std::int64_t>* rejections) {
  if (!family.supports_cc(device.cc)) return {};
  const EnumerationPlan plan = make_plan(family);
  Enumerator e{family, plan, rejections, {}, std::vector<std::int64_t>(plan.axes.size()), {}};
  add_problem_variables(e.vars, problem);
  device.add_to(e.vars);
  e.visit(0);
  // Cheapest first; equal costs by the config's text, computed once per candidate.
  std::vector<std::pair<std::string, std::size_t>> keys;
  for (std::size_t i = 0; i < e.out.size(); ++i) keys.emplace_back(e.out[i].config.to_json(), i);
  std::sort(keys.begin(), keys.end(), [&](const auto& x, const auto& y) {
    const double cx = e.out[x.second].cost_us, cy = e.out[y.second].cost_us;
    return cx != cy ? cx < cy : x.first < y.first;
  });
  std::vector<Candidate> out;
  out.reserve(keys.size());
  for (const auto& key : keys) out.push_back(std::move(e.out[key.second]));
  return out;
}

KernelConfig with_absent_params(const FamilySpec& family, KernelConfig config) {
  if (config.family != family.name) return config;
  for (const auto& [name, value] : family.absent) config.params.emplace(name, value);
  return config;
}

bool family_applies(const FamilySpec& family, const Problem& problem, const DeviceLimits& device) {
  if (!family.supports_cc(device.cc)) return false;
  const EnumerationPlan plan = make_plan(family);
  Enumerator e{family, plan, nullptr, {}, std::vector<std::int64_t>(plan.axes.size()), {}, true};
  add_problem_variables(e.vars, problem);
  device.add_to(e.vars);
  e.visit(0);
  return !e.out.empty();
}

std::vector<Candidate> plan_candidates(const std::vector<const FamilySpec*>& families,
                                       const Problem& problem, const DeviceLimits& device,
                                       std::size_t max_candidates, const std::set<std::string>& excluded,
                                       const std::vector<KernelConfig>& seeds, PlanOrder order,
                                       std::size_t family_share) {
  auto by_cost = [](const Candidate& x, const Candidate& y) { return x.cost_us < y.cost_us; };
  // The drawn order depends on the shape only, so a resumed or repeated run plans the same list.
  std::optional<std::mt19937_64> draw;
  if (order == PlanOrder::Random) draw.emplace(std::stoull(content_hash(problem.text()).substr(0, 16), nullptr, 16));
  const auto arrange = [&](std::vector<Candidate>& list) {
    if (draw) std::shuffle(list.begin(), list.end(), *draw);
    else std::stable_sort(list.begin(), list.end(), by_cost);
  };
  std::vector<Candidate> all;
  // Seeds that are valid here take their slots first, in the order given; with no cap they are
  // planned anyway.
  std::map<std::string, std::size_t> seed_rank;
  // A seed from an older database may lack parameters added since: completed, it matches the
  // variant it was (without this, no winner tuned before sm90 had PDL seeded anything).
  if (max_candidates != 0)
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      KernelConfig seed = seeds[i];
      for (const FamilySpec* family : families) seed = with_absent_params(*family, std::move(seed));
      seed_rank.emplace(seed.to_json(), i);
    }
  std::vector<std::pair<std::size_t, Candidate>> seeded;
  // Each family's cheapest candidates of distinct diversity keys are guaranteed a place: a quarter
  // of the list per family when two share it (at least two; an eighth under `family_share` 4). By
  // cost alone one family could take every slot on shapes where the other wins (measured: sm80's
  // uncalibrated model put 22 of 24 slots on K = 64 shapes sm90 wins), and a family's calibration
  // scale is an average over shapes: with scales and two guaranteed slots, sm90 got 2 of 24 on
  // 64x64x4096 and lost its winner there (1.106x -> 0.921x of cuBLASLt on the H200), since sm90's
  // model overestimates the smallest shapes.
  std::vector<Candidate> keep;
  std::size_t runnable = 0;
  for (const FamilySpec* family : families) runnable += family->supports_cc(device.cc);
  const std::size_t guaranteed =
      std::max<std::size_t>(2, max_candidates / (std::max<std::size_t>(1, family_share) *
                                                  std::max<std::size_t>(1, runnable)));
  std::map<std::string, std::int64_t> rejections;
  std::string unsupported;
  for (const FamilySpec* family : families) {
    if (!family->supports_cc(device.cc)) {
      unsupported += fmt::format(" {} needs compute capability {}..{};", family->name,
                                 family->min_cc, family->max_cc);
      continue;
    }
    auto found = enumerate_family(*family, problem, device, &rejections);
    if (order == PlanOrder::Random) arrange(found);
    std::set<std::string> kept_keys;
    for (auto& candidate : found) {
      // The config's text only where something is looked up by it: planning walks thousands of
      // candidates per shape, and enumerate_family has formatted each once already.
      if (!excluded.empty() || !seed_rank.empty()) {
        const std::string text = candidate.config.to_json();
        if (excluded.count(text)) continue;
        if (auto seed = seed_rank.find(text); seed != seed_rank.end()) {
          seeded.emplace_back(seed->second, std::move(candidate));
          continue;
        }
      }
      const bool distinct = kept_keys.size() < guaranteed && kept_keys.insert(diversity_key(candidate)).second;
      (distinct ? keep : all).push_back(std::move(candidate));
    }
  }
  if (all.empty() && keep.empty() && seeded.empty()) {
    std::string reason = unsupported;
    if (!rejections.empty()) {
      auto worst = std::max_element(rejections.begin(), rejections.end(),
                                    [](auto& x, auto& y) { return x.second < y.second; });
      reason += fmt::format(" the rule '{}' excludes it", worst->first);
    }
    throw UserError(fmt::format("shape {}: no kernel variant of the selected families applies:{}; "
                                "change the shape (pad it) or pick another --family/--layout",
                                problem.text(), reason));
  }
  arrange(all);
  std::sort(seeded.begin(), seeded.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  if (max_candidates != 0 && seeded.size() > max_candidates) seeded.resize(max_candidates);
  const std::size_t room = max_candidates == 0 ? all.size() + keep.size() : max_candidates - seeded.size();
  if (keep.size() > room) {
    arrange(keep);
    keep.resize(room);
  }
  // First the cheapest of each distinct diversity key, then the rest by cost.
  std::set<std::string> seen;
  for (const auto& c : keep) seen.insert(diversity_key(c));
  std::vector<bool> taken(all.size(), false);
  for (std::size_t i = 0; i < all.size() && keep.size() < room; ++i)
    if (seen.insert(diversity_key(all[i])).second) {
      keep.push_back(all[i]);
      taken[i] = true;
    }
  for (std::size_t i = 0; i < all.size() && keep.size() < room; ++i)
    if (!taken[i]) keep.push_back(all[i]);
  for (auto& [rank, candidate] : seeded) keep.push_back(std::move(candidate));
  std::stable_sort(keep.begin(), keep.end(), by_cost);
  return with_twins(std::move(keep), problem, device, excluded);
}

}  // namespace cl2
