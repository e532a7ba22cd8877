#include "gpu/cupti_api.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace cl2 {

namespace {

constexpr const char* kOverride = "CL2_CUPTI_LIBRARY";
constexpr const char* kSonames[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};

// Where to look: the override alone where it is set; else the loader's search path, then beside
// the cuBLAS this process loaded and in that toolkit's extras/CUPTI (neither is always on the
// loader's path).
std::vector<std::string> candidate_paths() {
  if (const char* path = std::getenv(kOverride); path && *path) return {path};
  std::vector<std::string> paths(std::begin(kSonames), std::end(kSonames));
  Dl_info cublas{};
  if (dladdr(reinterpret_cast<void*>(&cublasCreate_v2), &cublas) && cublas.dli_fname) {
    const std::filesystem::path dir = std::filesystem::path(cublas.dli_fname).parent_path();
    for (const auto* folder : {"", "../extras/CUPTI/lib64"})
      for (const char* soname : kSonames) paths.push_back((dir / folder / soname).lexically_normal().string());
  }
  return paths;
}

template <typename Fn>
bool resolve(void* library, Fn& target, const char* symbol, std::string& missing) {
  target = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!target) missing = symbol;
  return target != nullptr;
}

// The profiler's functions of a library that traces, or why it has none.
std::optional<CuptiProfilerApi> resolve_profiler(void* library, const std::string& path, std::string& unavailable) {
  CuptiProfilerApi p;
  std::string missing;
  const bool complete =
      resolve(library, p.initialize, "cuptiProfilerInitialize", missing) &&
      resolve(library, p.device_get_chip_name, "cuptiDeviceGetChipName", missing) &&
      resolve(library, p.get_counter_availability, "cuptiProfilerGetCounterAvailability", missing) &&
      resolve(library, p.host_initialize, "cuptiProfilerHostInitialize", missing) &&
      resolve(library, p.host_deinitialize, "cuptiProfilerHostDeinitialize", missing) &&
      resolve(library, p.host_config_add_metrics, "cuptiProfilerHostConfigAddMetrics", missing) &&
      resolve(library, p.host_get_config_image_size, "cuptiProfilerHostGetConfigImageSize", missing) &&
      resolve(library, p.host_get_config_image, "cuptiProfilerHostGetConfigImage", missing) &&
      resolve(library, p.host_get_num_of_passes, "cuptiProfilerHostGetNumOfPasses", missing) &&
      resolve(library, p.host_evaluate_to_gpu_values, "cuptiProfilerHostEvaluateToGpuValues", missing) &&
      resolve(library, p.range_enable, "cuptiRangeProfilerEnable", missing) &&
      resolve(library, p.range_disable, "cuptiRangeProfilerDisable", missing) &&
      resolve(library, p.range_get_counter_data_size, "cuptiRangeProfilerGetCounterDataSize", missing) &&
      resolve(library, p.range_counter_data_image_initialize, "cuptiRangeProfilerCounterDataImageInitialize",
              missing) &&
      resolve(library, p.range_set_config, "cuptiRangeProfilerSetConfig", missing) &&
      resolve(library, p.range_start, "cuptiRangeProfilerStart", missing) &&
      resolve(library, p.range_stop, "cuptiRangeProfilerStop", missing) &&
      resolve(library, p.range_push, "cuptiRangeProfilerPushRange", missing) &&
      resolve(library, p.range_pop, "cuptiRangeProfilerPopRange", missing) &&
      resolve(library, p.range_decode_data, "cuptiRangeProfilerDecodeData", missing) &&
      resolve(library, p.range_get_counter_data_info, "cuptiRangeProfilerGetCounterDataInfo", missing);
  if (complete) return p;
  unavailable = fmt::format("{} has no {} (a CUPTI older than CUDA 12.6?); install a newer CUDA toolkit's CUPTI or "
                            "set {} to one",
                            path, missing, kOverride);
  return std::nullopt;
}

}  // namespace

CuptiLibrary load_cupti(const std::vector<std::string>& paths) {
  std::string first_failure;
  for (const auto& path : paths) {
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      if (first_failure.empty())
        first_failure = fmt::format("CUPTI could not be loaded ({}); install the CUDA toolkit's CUPTI or set {} to "
                                    "its libcupti.so",
                                    dlerror(), kOverride);
      continue;
    }
    CuptiApi api;
    std::string missing;
    const bool complete = resolve(library, api.activity_enable, "cuptiActivityEnable", missing) &&
                          resolve(library, api.activity_disable, "cuptiActivityDisable", missing) &&
                          resolve(library, api.activity_register_callbacks, "cuptiActivityRegisterCallbacks", missing) &&
                          resolve(library, api.activity_flush_all, "cuptiActivityFlushAll", missing) &&
                          resolve(library, api.activity_get_next_record, "cuptiActivityGetNextRecord", missing) &&
                          resolve(library, api.get_stream_id_ex, "cuptiGetStreamIdEx", missing) &&
                          resolve(library, api.get_result_string, "cuptiGetResultString", missing);
    if (complete) {
      CuptiLibrary loaded{api, "", std::nullopt, ""};
      loaded.profiler = resolve_profiler(library, path, loaded.profiler_unavailable);
      return loaded;
    }
    dlclose(library);
    if (first_failure.empty())
      first_failure = fmt::format("{} has no {} (a CUPTI older than CUDA 12?); install a newer CUDA toolkit's CUPTI "
                                  "or set {} to one",
                                  path, missing, kOverride);
  }
  return {std::nullopt, first_failure, std::nullopt, first_failure};
}

const CuptiLibrary& cupti_library() {
  static const CuptiLibrary library = load_cupti(candidate_paths());
  return library;
}

std::string cupti_error_text(const CuptiApi& api, CUptiResult status) {
  const char* text = nullptr;
  if (api.get_result_string(status, &text) == CUPTI_SUCCESS && text)
    return fmt::format("{} ({})", text, int(status));
  return fmt::format("CUptiResult {}", int(status));
}

std::string cupti_refusal(const CuptiApi& api, const char* call, CUptiResult status) {
  const char* fix = status == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                        ? "allow GPU profiling for this user (driver option NVreg_RestrictProfilingToAdminUsers=0) or "
                          "run as root"
                        : "another profiler (ncu, nsys) may hold CUPTI; run without it";
  return fmt::format("CUPTI {} failed: {}; {}", call, cupti_error_text(api, status), fix);
}

}  // namespace cl2
