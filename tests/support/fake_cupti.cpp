// A stand-in for libcupti that loads like the real one but refuses to trace and to profile, as
// CUPTI does for a user without GPU profiling permission, so the CPU tests can take the
// no-permission path. With CL2_FAKE_CUPTI_PROFILER=allow its profiler starts
// (cuptiProfilerInitialize succeeds), so the fake worker makes counters up; it can do nothing more.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdlib>
#include <cstring>

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

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  const char* allow = std::getenv("CL2_FAKE_CUPTI_PROFILER");
  return allow && std::strcmp(allow, "allow") == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
}

// The rest of the profiler's functions exist, so the library loads as a complete CUPTI, but
// are never reached: the refusal comes first.
#define CL2_FAKE_REFUSES(name, params) \
  CUptiResult CUPTIAPI name(params*) { return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES; }
CL2_FAKE_REFUSES(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)
CL2_FAKE_REFUSES(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params)
CL2_FAKE_REFUSES(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerPushRange, CUpti_RangeProfiler_PushRange_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerPopRange, CUpti_RangeProfiler_PopRange_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)
CL2_FAKE_REFUSES(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)
