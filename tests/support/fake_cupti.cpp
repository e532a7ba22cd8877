// A stand-in for libcupti that loads like the real one but refuses to trace, as CUPTI does for a
// user without GPU profiling permission, so the CPU tests can take the no-permission path.
#include <cupti.h>

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind) { return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES; }
CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t*, size_t, CUpti_Activity**) {
  return CUPTI_ERROR_MAX_LIMIT_REACHED;
}
CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext, CUstream, uint8_t, uint32_t*) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** text) {
  *text = result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_UNKNOWN";
  return CUPTI_SUCCESS;
}
