#include "gpu/lt_algo_query.hpp"

#include <cstdint>

#include "gpu/lt_algo_names.hpp"

namespace cl2 {
namespace {

// One attribute of the type cublasLt.h documents for it; false unless cuBLASLt wrote all of it.
template <typename T>
bool read_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute, T& value) {
  std::size_t written = 0;
  return cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), &written) ==
             CUBLAS_STATUS_SUCCESS &&
         written == sizeof(value);
}

}  // namespace

std::optional<LtAlgoConfig> query_lt_algo_config(const cublasLtMatmulAlgo_t& algo) {
  std::int32_t id = 0, splitk = 1;
  std::uint32_t tile = 0, reduction = 0, swizzle = 0, custom = 0, stages = 0;
  std::uint16_t cluster = 0;
  const bool read = read_attribute(algo, CUBLASLT_ALGO_CONFIG_ID, id) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, tile) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, stages) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitk) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom) &&
                    read_attribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster);
  if (!read) return std::nullopt;
  return LtAlgoConfig{id,
                      lt_tile_name(tile),
                      lt_stages_name(stages),
                      splitk,
                      lt_reduction_name(reduction),
                      static_cast<int>(swizzle),
                      static_cast<int>(custom),
                      lt_cluster_name(cluster)};
}

}  // namespace cl2
