#pragma once
// A template family as its space file (configs/spaces/<family>.json) describes it: the template,
// the architectures it runs on, parameter domains, constraints, derived compile-time constants,
// launch geometry, the tensor maps the host must encode, and a cost model that orders candidates.
// Every rule is an Expr over parameters, problem (M, N, K, LAYOUT_TN, ACCUM_F16) and device
// (CC, NUM_SMS, SMEM_OPTIN, ...), so a new family is a new .cuh plus a new .json.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/expr.hpp"

namespace cl2 {

struct Constraint {
  Expr rule;
  std::string why;        // shown when a shape breaks the rule for every candidate
  bool planning = false;  // only steers the search: kernels are right without it
};

// A TMA descriptor the runner encodes for each launch (operand "a", "b" or "c"); box sizes are
// expressions, the global extent and stride come from the operand and the problem.
struct TensorMapSpec {
  std::string operand;
  Expr box_inner, box_outer;
  // 0: a 2-D map (inner, rows). d > 0: a 3-D map (64-wide atoms of the inner extent, rows, atoms)
  // whose box holds d atoms; sm90's KB_PAIR loads two k atoms per box.
  Expr box_depth;
  Expr swizzle_bytes;        // 0, 32, 64 or 128 (sm90's C map follows its chunk width)
  std::optional<Expr> when;  // encoded only where this holds (e.g. a TMA-store epilogue)
};

// A factor on the cost model's estimate wherever `when` holds: the model's terms are hand-set, and
// `cuda-l2-tune calibrate` fits these factors to measured trials (least squares on log time) so that
// the model ranks a shape's variants as the GPU does.
struct CostFactor {
  std::string text;  // `when` as written, for reports
  Expr when;
  double factor = 1.0;
};

// A parameter whose best value the model cannot tell and only timing can: beside each of the plan's
// first `first` candidates whose `param` is not `value`, the plan adds the same variant with `value`
// (sm90: PDL=0 beside PDL=1, since whether a call gains from overlapping the previous one depends
// on the kernel and the GPU, e.g. the H200's 64x5120x5120 decode winner lost 7% with it).
struct PlanTwin {
  std::string param;
  std::int64_t value = 0;
  std::size_t first = 0;
};

struct LaunchSpec {
  Expr threads;
  std::array<Expr, 3> grid;
  std::array<Expr, 3> cluster;
  Expr smem_bytes;
  Expr workspace_bytes;
  Expr programmatic;  // nonzero: launched to overlap the previous kernel of its stream (PDL)
};

struct FamilySpec {
  std::string name;
  std::string description;
  std::string template_source;        // the .cuh text
  std::string template_path;
  int min_cc = 0, max_cc = 0;
  std::map<std::string, std::vector<std::int64_t>> params;   // sorted by name
  std::map<std::string, std::string> runtime_params;         // param -> Cl2GemmParams field
  std::vector<std::pair<std::string, Expr>> defines;         // in file order
  // Named intermediate values of the rules and the cost model (may use the problem and device);
  // evaluated after the defines, never compiled into the kernel.
  std::vector<std::pair<std::string, Expr>> derived;
  std::vector<Constraint> constraints;
  LaunchSpec launch;
  std::vector<TensorMapSpec> tensor_maps;
  Expr cost_us;
  // A time no variant beats whatever the calibration says (bytes that must come from DRAM, a CTA's
  // latency-bound stream): the factors, fitted to the trials of compute-bound shapes, would
  // otherwise stretch a bandwidth bound and reorder variants that all wait for DRAM.
  std::optional<Expr> floor_us;
  std::vector<CostFactor> calibration;  // applied by model_cost (search/cost_model.hpp)
  // Measured time over calibrated estimate, on average over the trials calibrate fitted: puts the
  // families' costs in one unit, so they can be compared when they share a shape's slots.
  std::optional<double> calibration_scale;
  // Params whose values make candidates genuinely different; the plan takes the cheapest of each
  // distinct combination first, so a short list is not filled with near-copies of one config.
  std::vector<std::string> diversity;
  std::vector<std::string> compile_options;                  // extra NVRTC flags
  std::optional<PlanTwin> twin;                              // search/candidates.hpp plan_candidates
  // Params added to the family after kernels were stored without them: the value such a stored
  // configuration has (the one its template compiles where CL2_<param> is undefined), so that the
  // model and the rules can still read it (calibrate over an older database's trials).
  std::map<std::string, std::int64_t> absent;

  bool supports_cc(int cc) const { return cc >= min_cc && cc <= max_cc; }
};

// Parses a space file; `source` names it in errors, `read_template` loads the template it names.
FamilySpec parse_family_spec(const std::string& json_text, const std::string& source,
                             const std::string& template_text, const std::string& template_path);

// The families compiled into the binary (configs/spaces/*.json), by name.
const std::map<std::string, FamilySpec>& builtin_families();

// A family from a space file on disk; its "template" path is relative to the space file.
FamilySpec load_family_file(const std::string& path);

// The family with each parameter of `pins` that it has fixed to the pinned value, and without its
// planning rules (a pinned variant runs on any shape its correctness rules allow); nothing when the
// family does not list a pinned value (its template is written for the listed values only), and
// then `mismatch` (if given) says which, e.g. "family sm80 takes BN in {32, 64, 128, 256}".
std::optional<FamilySpec> pin_family(const FamilySpec& family, const std::map<std::string, std::int64_t>& pins,
                                     std::string* mismatch = nullptr);

// Puts `factors` (rule as written -> factor, e.g. from `calibrate --store`) in place of the family's
// calibration factors of the same rule, and `scale` where given. Returns the rules of `factors`
// the family does not have (its space file changed since the fit), which are left out.
std::vector<std::string> apply_calibration(FamilySpec& family, const std::vector<std::pair<std::string, double>>& factors,
                                           std::optional<double> scale);

// Resolves --family values ("sm80", "sm80,sm90", "all") against the built-in families and the
// extra ones; throws UserError naming the unknown family and listing the known ones.
std::vector<const FamilySpec*> select_families(const std::vector<std::string>& names,
                                               const std::vector<FamilySpec>& extra);

}  // namespace cl2
