#pragma once
// Candidates turned into cubins: sources generated, jobs deduplicated (configs that differ only in
// runtime params share one source and one compile), compiled in parallel through the cache.
#include <functional>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/problem.hpp"
#include "runner/protocol.hpp"
#include "search/candidates.hpp"

namespace cl2 {

struct BuiltCandidate {
  Candidate candidate;
  KernelSource source;
  std::string arch;
  CompiledKernel compiled;

  // Why it must not be timed ("" when it may): compile errors, spills, ptxas warnings.
  std::string rejection() const;
};

// What the worker needs to run `built` under `rule`.
KernelRun kernel_run(const BuiltCandidate& built, const StopRule& rule);

struct BuildCounts {
  std::size_t unique = 0, from_cache = 0, failed = 0, rejected = 0;
};

// One list of built candidates per problem, in the candidates' order. `on_compiled(done, total)`
// reports progress over the unique compiles.
std::vector<std::vector<BuiltCandidate>> build_candidates(
    const std::vector<Problem>& problems, const std::vector<std::vector<Candidate>>& candidates,
    const std::string& arch, const KernelCompiler& compiler, BuildCounts& counts,
    const std::function<void(std::size_t, std::size_t)>& on_compiled = {});

}  // namespace cl2
