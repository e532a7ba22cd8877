#pragma once
// A kernel stored in the database, made launchable again for a problem: its configuration gives
// the family (built in, or from a space file), the family gives the launch geometry and the
// source, and the cache gives the cubin (compiling only if the cache lost it).
#include <vector>

#include "db/records.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
#include "tune/candidate_build.hpp"

namespace cl2 {

// Throws UserError when the kernel's family is unknown to this build (a --space-file family that
// was not given again) or its source no longer compiles.
BuiltCandidate rebuild_candidate(const KernelRecord& kernel, const Problem& problem,
                                 const DeviceLimits& limits, const std::vector<FamilySpec>& extra,
                                 const KernelCompiler& compiler);

}  // namespace cl2
