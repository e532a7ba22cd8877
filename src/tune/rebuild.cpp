#include "tune/rebuild.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "search/cost_model.hpp"

namespace cl2 {

RebuiltKernel rebuild_kernel(const KernelRecord& kernel, Layout layout, Accum accum, const std::string& what,
                             const std::vector<FamilySpec>& extra, const KernelCompiler& compiler) {
  RebuiltKernel built;
  built.config = KernelConfig::from_json(kernel.config_json);
  built.family = select_families({built.config.family}, extra).front();
  built.source = generate_source(*built.family, built.config, layout, accum);
  built.compiled = compiler.compile({built.source, compile_options(*built.family, kernel.arch), kernel.arch});
  if (!built.compiled.ok)
    throw UserError(fmt::format("{}: the stored {} kernel no longer compiles; run tune --retune", what,
                                built.family->name));
  if (built.source.hash != kernel.source_hash)
    throw UserError(fmt::format("{}: the {} template changed since this kernel was tuned (source hash "
                                "{} vs {}); run tune --retune to measure the current one",
                                what, built.family->name, built.source.hash.substr(0, 12),
                                kernel.source_hash.substr(0, 12)));
  return built;
}

BuiltCandidate rebuild_candidate(const KernelRecord& kernel, const Problem& problem,
                                 const DeviceLimits& limits, const std::vector<FamilySpec>& extra,
                                 const KernelCompiler& compiler) {
  RebuiltKernel rebuilt = rebuild_kernel(kernel, problem.layout, problem.accum, problem.text(), extra, compiler);
  const ExprVariables vars = config_variables(*rebuilt.family, rebuilt.config, problem, limits);
  return {{rebuilt.family, rebuilt.config, launch_geometry(*rebuilt.family, vars), model_cost(*rebuilt.family, vars)},
          std::move(rebuilt.source),
          kernel.arch,
          std::move(rebuilt.compiled)};
}

}  // namespace cl2
