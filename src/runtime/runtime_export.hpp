#pragma once
// `export --format bundle|cpp`: the dispatch table of one GPU of a tuning database, with each
// winner's kernel (cubin and source) from the kernel cache, compiled where the cache lost it.
#include <string>

#include "compiler/kernel_compiler.hpp"
#include "db/tuning_db.hpp"
#include "runtime/bundle.hpp"

namespace cl2 {

// Throws UserError where `device_filter` (as export --device) leaves no GPU with winners or
// several, or a winner's kernel cannot be rebuilt.
Bundle bundle_from_db(const TuningDb& db, const std::string& device_filter, const KernelCompiler& compiler);

}  // namespace cl2
