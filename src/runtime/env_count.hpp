#pragma once
// The runtime's counts read from environment variables (CL2_FIRST_CALL_TIMING,
// CL2_PLANNED_CANDIDATES), read at open so that a typo is reported before any GEMM, not ignored.
#include <string_view>

namespace cl2 {

// The count `value` of variable `name` gives: `fallback` where it is null or empty, else a whole
// number from 0 to `max`. RuntimeError (CL2_ERROR_INVALID_ARGUMENT) for anything else, naming the
// variable, the value and the fix: "set <what> (0: none), or unset it for <fallback>".
int count_from_env(std::string_view name, const char* value, int fallback, int max, std::string_view what);

}  // namespace cl2
