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
    if (complete) return {api, ""};
    dlclose(library);
    if (first_failure.empty())
      first_failure = fmt::format("{} has no {} (a CUPTI older than CUDA 12?); install a newer CUDA toolkit's CUPTI "
                                  "or set {} to one",
                                  path, missing, kOverride);
  }
  return {std::nullopt, first_failure};
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

}  // namespace cl2
