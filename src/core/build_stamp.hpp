#pragma once
// Which commit this binary was built from (cmake/build_stamp.cmake writes it at every build):
// `--version` says it, so a result measured on another machine names the build that measured it.

namespace cl2 {

const char* build_commit();  // git's short hash, "-dirty" with local changes, or "unknown"

}  // namespace cl2
