#pragma once
// The CUPTI functions kernel tracing uses, loaded at run time (dlopen) instead of linked, like the
// driver API (driver_api.hpp): the binary then starts, and tunes without traces, where CUPTI is
// not installed. CL2_CUPTI_LIBRARY names the library to load instead of the usual ones (a path that
// does not exist turns tracing off, which is how the tests take the no-CUPTI path).
#include <cupti.h>

#include <optional>
#include <string>
#include <vector>

namespace cl2 {

struct CuptiApi {
  CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                             CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*activity_flush_all)(uint32_t) = nullptr;
  CUptiResult (*activity_get_next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*get_stream_id_ex)(CUcontext, CUstream, uint8_t, uint32_t*) = nullptr;
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
};

// A loaded CUPTI: `api` is empty where it could not be loaded, and `unavailable` says why in one
// line with the fix.
struct CuptiLibrary {
  std::optional<CuptiApi> api;
  std::string unavailable;
};

// The first of `paths` that loads with every function above (the library stays loaded).
CuptiLibrary load_cupti(const std::vector<std::string>& paths);

// CUPTI as this process finds it, loaded on first use.
const CuptiLibrary& cupti_library();

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)", or the number alone where CUPTI cannot name it.
std::string cupti_error_text(const CuptiApi& api, CUptiResult status);

}  // namespace cl2
