#include "tune/rebuild.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "search/cost_model.hpp"

namespace cl2 {

BuiltCandidate rebuild_candidate(const KernelRecord& kernel, const Problem& problem,
                                 const DeviceLimits& limits, const std::vector<FamilySpec>& extra,
                                 const KernelCompiler& compiler) {
  const KernelConfig config = KernelConfig::from_json(kernel.config_json);
  const FamilySpec* family = select_families({config.family}, extra).front();
  const ExprVariables vars = config_variables(*family, config, problem, limits);
  BuiltCandidate built{{family, config, launch_geometry(*family, vars), model_cost(*family, vars)},
                       generate_source(*family, config, problem.layout, problem.accum),
                       kernel.arch,
                       {}};
  built.compiled = compiler.compile({built.source, compile_options(*family, kernel.arch), kernel.arch});
  if (!built.compiled.ok)
    throw UserError(fmt::format("{}: the stored {} kernel no longer compiles; run tune --retune",
                                problem.text(), family->name));
  if (built.source.hash != kernel.source_hash)
    throw UserError(fmt::format("{}: the {} template changed since this kernel was tuned (source hash "
                                "{} vs {}); run tune --retune to measure the current one",
                                problem.text(), family->name, built.source.hash.substr(0, 12),
                                kernel.source_hash.substr(0, 12)));
  return built;
}

}  // namespace cl2
