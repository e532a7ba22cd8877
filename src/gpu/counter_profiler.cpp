#include "gpu/counter_profiler.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/driver_api.hpp"

namespace cl2 {

namespace {

// Why profiling stopped, in one line with its fix; thrown inside this file only.
struct ProfilerFailure {
  std::string reason;
};

void check(const CuptiApi& api, const char* call, CUptiResult status) {
  if (status != CUPTI_SUCCESS) throw ProfilerFailure{cupti_refusal(api, call, status)};
}

// CUPTI's parameter structs: zeroed, with their size set, as every CUPTI call expects.
template <typename Params>
Params params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

// A Profiler Host object (metric evaluation and config images for one chip), deinitialized at the end.
class HostObject {
 public:
  HostObject(const CuptiLibrary& cupti, const std::string& chip, const std::vector<std::uint8_t>& availability)
      : cupti_(cupti) {
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    check(*cupti.api, "cuptiProfilerHostInitialize", cupti.profiler->host_initialize(&p));
    object_ = p.pHostObject;
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object_;
    cupti_.profiler->host_deinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  const CuptiLibrary& cupti_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// The range profiler attached to a context, from Enable to Disable.
class RangeSession {
 public:
  RangeSession(const CuptiLibrary& cupti, CUcontext context) : cupti_(cupti) {
    auto p = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    p.ctx = context;
    check(*cupti.api, "cuptiRangeProfilerEnable", cupti.profiler->range_enable(&p));
    object_ = p.pRangeProfilerObject;
  }
  ~RangeSession() {
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    cupti_.profiler->range_disable(&p);
  }
  RangeSession(const RangeSession&) = delete;
  RangeSession& operator=(const RangeSession&) = delete;
  CUpti_RangeProfiler_Object* get() const { return object_; }

 private:
  const CuptiLibrary& cupti_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

std::string chip_name(const CuptiLibrary& cupti) {
  int device = 0;
  CL2_CUDA(cudaGetDevice(&device));
  auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = std::size_t(device);
  check(*cupti.api, "cuptiDeviceGetChipName", cupti.profiler->device_get_chip_name(&p));
  return p.pChipName ? p.pChipName : "";
}

// Which counters this GPU offers now; empty where CUPTI will not say, which the host API accepts
// (a refusal to profile then surfaces at the range profiler's start, with its own error).
std::vector<std::uint8_t> counter_availability(const CuptiLibrary& cupti, CUcontext context) {
  auto p = params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  p.ctx = context;
  if (cupti.profiler->get_counter_availability(&p) != CUPTI_SUCCESS) return {};
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  if (cupti.profiler->get_counter_availability(&p) != CUPTI_SUCCESS) return {};
  return image;
}

CUcontext current_context() {
  CUcontext context = nullptr;
  CL2_CU(driver_api().ctx_get_current(&context));
  if (!context) throw ProfilerFailure{"no CUDA context is current to profile in (a bug: the problem is set up first)"};
  return context;
}

}  // namespace

// A host object with `names` added, their config image, and how many passes that image needs.
struct CounterProfiler::MetricConfig {
  std::unique_ptr<HostObject> host;
  std::vector<const char*> names;
  std::vector<std::size_t> metric_index;  // per name, its place in kCounterMetrics
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;

  MetricConfig(const CuptiLibrary& cupti, const std::string& chip, const std::vector<std::uint8_t>& availability,
               const std::vector<std::size_t>& metrics)
      : host(std::make_unique<HostObject>(cupti, chip, availability)), metric_index(metrics) {
    const CuptiApi& api = *cupti.api;
    const CuptiProfilerApi& profiler = *cupti.profiler;
    for (const std::size_t i : metrics) names.push_back(kCounterMetrics[i].cupti_name.data());
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host->get();
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    check(api, "cuptiProfilerHostConfigAddMetrics", profiler.host_config_add_metrics(&add));
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host->get();
    check(api, "cuptiProfilerHostGetConfigImageSize", profiler.host_get_config_image_size(&size));
    image.resize(size.configImageSize);
    auto get = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = host->get();
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    check(api, "cuptiProfilerHostGetConfigImage", profiler.host_get_config_image(&get));
    auto count = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    count.configImageSize = image.size();
    count.pConfigImage = image.data();
    check(api, "cuptiProfilerHostGetNumOfPasses", profiler.host_get_num_of_passes(&count));
    passes = count.numOfPasses;
  }
};

std::unique_ptr<CounterProfiler::MetricConfig> CounterProfiler::choose_metrics(CUcontext context) const {
  const std::string chip = chip_name(*cupti_);
  const std::vector<std::uint8_t> availability = counter_availability(*cupti_, context);
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i)
    if (!kCounterMetrics[i].optional) chosen.push_back(i);
  auto config = std::make_unique<MetricConfig>(*cupti_, chip, availability, chosen);
  if (config->passes != 1)
    throw ProfilerFailure{fmt::format("the counters need {} passes on {}, not one; this CUPTI or chip is not "
                                      "supported for profiling (use ncu instead)",
                                      config->passes, chip)};
  // Each optional metric joins where the chip collects it in the same pass (a pass more would
  // replay the call); where it does not, it stays NaN.
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i) {
    if (!kCounterMetrics[i].optional) continue;
    std::vector<std::size_t> with = config->metric_index;
    with.push_back(i);
    try {
      auto wider = std::make_unique<MetricConfig>(*cupti_, chip, availability, with);
      if (wider->passes == 1) config = std::move(wider);
    } catch (const ProfilerFailure&) {
      // an unknown metric on this chip: left out
    }
  }
  return config;
}

CallCounters CounterProfiler::collect(CUcontext context, cudaStream_t stream,
                                      const std::function<void(cudaStream_t)>& launch) {
  const CuptiApi& api = *cupti_->api;
  const CuptiProfilerApi& profiler = *cupti_->profiler;
  CL2_CUDA(cudaDeviceSynchronize());  // nothing launched earlier may fall into the range
  RangeSession session(*cupti_, context);
  auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = session.get();
  size.pMetricNames = config_->names.data();
  size.numMetrics = config_->names.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  check(api, "cuptiRangeProfilerGetCounterDataSize", profiler.range_get_counter_data_size(&size));
  std::vector<std::uint8_t> data(size.counterDataSize);
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = session.get();
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  check(api, "cuptiRangeProfilerCounterDataImageInitialize", profiler.range_counter_data_image_initialize(&init));
  // One user range around the call, replayed by us: with one pass there is nothing to replay.
  auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = session.get();
  set.configSize = config_->image.size();
  set.pConfig = config_->image.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = 1;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  check(api, "cuptiRangeProfilerSetConfig", profiler.range_set_config(&set));

  auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = session.get();
  check(api, "cuptiRangeProfilerStart", profiler.range_start(&start));
  auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  push.pRangeProfilerObject = session.get();
  push.pRangeName = "call";
  check(api, "cuptiRangeProfilerPushRange", profiler.range_push(&push));
  launch(stream);
  CL2_CUDA(cudaDeviceSynchronize());  // work the call put on other streams included
  auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  pop.pRangeProfilerObject = session.get();
  check(api, "cuptiRangeProfilerPopRange", profiler.range_pop(&pop));
  auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = session.get();
  check(api, "cuptiRangeProfilerStop", profiler.range_stop(&stop));
  if (!stop.isAllPassSubmitted)
    throw ProfilerFailure{"CUPTI asked for another pass of a metric set chosen to need one; use ncu instead"};
  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = session.get();
  check(api, "cuptiRangeProfilerDecodeData", profiler.range_decode_data(&decode));
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(api, "cuptiRangeProfilerGetCounterDataInfo", profiler.range_get_counter_data_info(&info));
  if (info.numTotalRanges < 1) return absent_counters("CUPTI recorded no range around the call");

  std::vector<double> values(config_->names.size());
  auto evaluate = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  evaluate.pHostObject = config_->host->get();
  evaluate.pCounterDataImage = data.data();
  evaluate.counterDataImageSize = data.size();
  evaluate.rangeIndex = 0;
  evaluate.ppMetricNames = config_->names.data();
  evaluate.numMetrics = config_->names.size();
  evaluate.pMetricValues = values.data();
  check(api, "cuptiProfilerHostEvaluateToGpuValues", profiler.host_evaluate_to_gpu_values(&evaluate));
  CallCounters counters;
  for (std::size_t n = 0; n < values.size(); ++n) {
    const std::size_t i = config_->metric_index[n];
    counters.values[i] = values[n] * kCounterMetrics[i].scale;
  }
  return counters;
}

CounterProfiler::CounterProfiler() = default;
CounterProfiler::CounterProfiler(const CuptiLibrary& cupti) : cupti_(&cupti) {}
CounterProfiler::~CounterProfiler() = default;

CallCounters CounterProfiler::measure(cudaStream_t stream, const std::function<void(cudaStream_t)>& launch) {
  if (!cupti_) cupti_ = &cupti_library();
  if (!refused_.empty()) return absent_counters(refused_);
  try {
    if (!config_) {
      // Nothing touches the GPU before CUPTI agreed to start its profiler.
      if (std::string why = profiler_unavailable(*cupti_); !why.empty()) throw ProfilerFailure{std::move(why)};
      const CUcontext context = current_context();
      config_ = choose_metrics(context);
    }
    return collect(current_context(), stream, launch);
  } catch (const ProfilerFailure& failure) {
    refused_ = failure.reason;
    return absent_counters(refused_);
  }
}

std::string profiler_unavailable(const CuptiLibrary& cupti) {
  if (!cupti.api) return cupti.unavailable;
  if (!cupti.profiler) return cupti.profiler_unavailable;
  auto p = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (const CUptiResult status = cupti.profiler->initialize(&p); status != CUPTI_SUCCESS)
    return cupti_refusal(*cupti.api, "cuptiProfilerInitialize", status);
  return "";
}

}  // namespace cl2
