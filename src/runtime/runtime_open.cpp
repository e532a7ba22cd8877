#include "runtime/runtime_open.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "gpu/device_query.hpp"
#include "runtime/bundle.hpp"
#include "runtime/gpu_gemm_backend.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

namespace {

RuntimeInput input_from_bundle(Bundle bundle, std::string what) {
  std::map<std::string, std::string> cubins;
  for (auto& [key, kernel] : bundle.kernels) cubins.emplace(key, std::move(kernel.cubin));
  std::vector<DispatchTable> tables;
  tables.push_back(std::move(bundle.table));
  return {std::move(what), std::move(tables), std::make_unique<StoredCubins>(std::move(cubins))};
}

}  // namespace

RuntimeInput read_runtime_input(const std::string& path, const std::string& cache_dir, std::string_view path_option) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return input_from_bundle(read_bundle(path), path);
  try {
    const auto db = TuningDb::open(path, DbMode::ReadOnly, path_option);
    return {path, dispatch_tables(*db), std::make_unique<CompiledCubins>(KernelCompiler(cache_dir)),
            std::make_unique<CompilingShapePlanner>(KernelCompiler(cache_dir))};
  } catch (const UserError& e) {
    throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE, e.what());
  }
}

RuntimeInput read_embedded_input(const cl2_embedded_bundle& embedded) {
  const std::string what = "the embedded bundle";
  if (!embedded.table_json || (embedded.kernel_count > 0 && !embedded.kernels))
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT, "cl2_open_embedded: the bundle has null fields; pass the "
                                                   "cl2_tuned_bundle of a header written by export --format cpp");
  Bundle bundle = parse_bundle(
      std::string_view(embedded.table_json, embedded.table_json_bytes),
      [&](const std::string& key, const std::string&) {
        for (std::size_t i = 0; i < embedded.kernel_count; ++i) {
          const cl2_embedded_kernel& kernel = embedded.kernels[i];
          if (kernel.key && kernel.cubin && key == kernel.key)
            return std::string(reinterpret_cast<const char*>(kernel.cubin), kernel.cubin_bytes);
        }
        throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE,
                           fmt::format("{}: kernel {} is missing; export the header again", what, key));
      },
      what);
  return input_from_bundle(std::move(bundle), what);
}

TableChoice table_for_device(std::vector<DispatchTable> tables, const DeviceInfo& device, bool library_fallback,
                             const std::string& what) {
  std::string tuned_on;
  for (DispatchTable& table : tables) {
    if (table.device.name == device.name && table.device.cc() == device.cc()) return {std::move(table), false, ""};
    tuned_on += fmt::format("{}{} (sm_{})", tuned_on.empty() ? "" : ", ", table.device.name, table.device.cc());
  }
  if (!library_fallback) {
    if (tuned_on.empty())
      throw RuntimeError(CL2_ERROR_BAD_INPUT_FILE, fmt::format("{}: holds no tuned kernels; tune first, or open with "
                                                               "CL2_OPEN_LIBRARY_FALLBACK to use cuBLASLt", what));
    throw RuntimeError(CL2_ERROR_DEVICE_MISMATCH,
                       fmt::format("{}: tuned on {}, not on this {} (sm_{}); tune on this GPU, or open with "
                                   "CL2_OPEN_LIBRARY_FALLBACK to use cuBLASLt",
                                   what, tuned_on, device.name, device.cc()));
  }
  return {{device, {}, {}},
          true,
          fmt::format("{}: no kernels tuned on this {} (sm_{}); every GEMM goes to cuBLASLt", what, device.name,
                      device.cc())};
}

OpenOptions open_options(unsigned flags) {
  OpenOptions options;
  options.library_fallback = (flags & CL2_OPEN_LIBRARY_FALLBACK) != 0;
  options.weights_read_only = (flags & CL2_OPEN_WEIGHTS_READ_ONLY) != 0;
  const bool timing = (flags & CL2_OPEN_NO_FIRST_CALL_TIMING) == 0;
  options.timed_candidates = timing ? timed_candidates_from_env(std::getenv("CL2_FIRST_CALL_TIMING")) : 0;
  options.planned_candidates = timing ? planned_candidates_from_env(std::getenv("CL2_PLANNED_CANDIDATES")) : 0;
  return options;
}

std::unique_ptr<Runtime> open_runtime(RuntimeInput input, const OpenOptions& options) {
  int index = 0;
  if (cudaGetDevice(&index) != cudaSuccess) index = 0;
  if (const std::string reason = gpu_unavailable_reason(index); !reason.empty())
    throw RuntimeError(CL2_ERROR_NO_DEVICE, "cl2_open: " + reason);
  const DeviceInfo device = query_device(index);
  TableChoice choice = table_for_device(std::move(input.tables), device, options.library_fallback, input.what);
  if (!choice.warning.empty()) std::fprintf(stderr, "libcl2: warning: %s\n", choice.warning.c_str());
  return std::make_unique<Runtime>(std::move(choice.table), device_limits(device),
                                   std::make_unique<GpuGemmBackend>(std::move(input.cubins), index,
                                                                    options.weights_read_only
                                                                        ? Overlap::WhereProgrammatic
                                                                        : Overlap::Never),
                                   DispatchOptions{choice.library_only, options.timed_candidates,
                                                   options.planned_candidates},
                                   std::move(input.planner));
}

}  // namespace cl2
