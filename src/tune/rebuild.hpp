#pragma once
// A kernel stored in the database, made launchable again: its configuration gives the family
// (built in, or from a space file), the family gives the source (and, for a problem, the launch
// geometry), and the cache gives the cubin (compiling only if the cache lost it).
#include <string>
#include <vector>

#include "db/records.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
#include "tune/candidate_build.hpp"

namespace cl2 {

struct RebuiltKernel {
  const FamilySpec* family = nullptr;
  KernelConfig config;
  KernelSource source;
  CompiledKernel compiled;
};

// The cubin of `kernel` for problems of `layout` and `accum`; `what` names the problem in errors.
// Throws UserError when the kernel's family is unknown to this build (a --space-file family that
// was not given again), its source no longer compiles, or the template changed since it was tuned.
RebuiltKernel rebuild_kernel(const KernelRecord& kernel, Layout layout, Accum accum, const std::string& what,
                             const std::vector<FamilySpec>& extra, const KernelCompiler& compiler);

// The same, with the launch geometry and modelled cost at `problem` on `limits`.
BuiltCandidate rebuild_candidate(const KernelRecord& kernel, const Problem& problem,
                                 const DeviceLimits& limits, const std::vector<FamilySpec>& extra,
                                 const KernelCompiler& compiler);

}  // namespace cl2
