#pragma once
// The CUPTI functions kernel tracing and the counter profiler use, loaded at run time (dlopen)
// instead of linked, like the driver API (driver_api.hpp): the binary then starts, and tunes
// without traces or counters, where CUPTI is not installed. CL2_CUPTI_LIBRARY names the library to load instead of the usual ones (a path that
// does not exist turns tracing off, which is how the tests take the no-CUPTI path).
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

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

// The Range Profiler and Profiler Host API (gpu/counter_profiler), newer than the activity API:
// a CUPTI may trace without having them.
struct CuptiProfilerApi {
  CUptiResult (*initialize)(CUpti_Profiler_Initialize_Params*) = nullptr;
  CUptiResult (*device_get_chip_name)(CUpti_Device_GetChipName_Params*) = nullptr;
  CUptiResult (*get_counter_availability)(CUpti_Profiler_GetCounterAvailability_Params*) = nullptr;
  CUptiResult (*host_initialize)(CUpti_Profiler_Host_Initialize_Params*) = nullptr;
  CUptiResult (*host_deinitialize)(CUpti_Profiler_Host_Deinitialize_Params*) = nullptr;
  CUptiResult (*host_config_add_metrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*) = nullptr;
  CUptiResult (*host_get_config_image_size)(CUpti_Profiler_Host_GetConfigImageSize_Params*) = nullptr;
  CUptiResult (*host_get_config_image)(CUpti_Profiler_Host_GetConfigImage_Params*) = nullptr;
  CUptiResult (*host_get_num_of_passes)(CUpti_Profiler_Host_GetNumOfPasses_Params*) = nullptr;
  CUptiResult (*host_evaluate_to_gpu_values)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*) = nullptr;
  CUptiResult (*range_enable)(CUpti_RangeProfiler_Enable_Params*) = nullptr;
  CUptiResult (*range_disable)(CUpti_RangeProfiler_Disable_Params*) = nullptr;
  CUptiResult (*range_get_counter_data_size)(CUpti_RangeProfiler_GetCounterDataSize_Params*) = nullptr;
  CUptiResult (*range_counter_data_image_initialize)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) = nullptr;
  CUptiResult (*range_set_config)(CUpti_RangeProfiler_SetConfig_Params*) = nullptr;
  CUptiResult (*range_start)(CUpti_RangeProfiler_Start_Params*) = nullptr;
  CUptiResult (*range_stop)(CUpti_RangeProfiler_Stop_Params*) = nullptr;
  CUptiResult (*range_push)(CUpti_RangeProfiler_PushRange_Params*) = nullptr;
  CUptiResult (*range_pop)(CUpti_RangeProfiler_PopRange_Params*) = nullptr;
  CUptiResult (*range_decode_data)(CUpti_RangeProfiler_DecodeData_Params*) = nullptr;
  CUptiResult (*range_get_counter_data_info)(CUpti_RangeProfiler_GetCounterDataInfo_Params*) = nullptr;
};

// A loaded CUPTI: `api` is empty where it could not be loaded, and `unavailable` says why in one
// line with the fix; likewise `profiler` and `profiler_unavailable` for the profiler's functions
// (empty too where `api` is).
struct CuptiLibrary {
  std::optional<CuptiApi> api;
  std::string unavailable;
  std::optional<CuptiProfilerApi> profiler;
  std::string profiler_unavailable;
};

// The first of `paths` that loads with every function above (the library stays loaded).
CuptiLibrary load_cupti(const std::vector<std::string>& paths);

// CUPTI as this process finds it, loaded on first use.
const CuptiLibrary& cupti_library();

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)", or the number alone where CUPTI cannot name it.
std::string cupti_error_text(const CuptiApi& api, CUptiResult status);

// The one-line reason CUPTI's `call` failed, with the fix: for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
// how to allow profiling; otherwise that another profiler may hold CUPTI.
std::string cupti_refusal(const CuptiApi& api, const char* call, CUptiResult status);

}  // namespace cl2
