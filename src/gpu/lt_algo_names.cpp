#include "gpu/lt_algo_names.hpp"

#include <cublasLt.h>
#include <fmt/format.h>

#include <span>

namespace cl2 {
namespace {

struct EnumName {
  std::uint32_t value;
  const char* name;
};

// The enumerators with digits in their names come from the header this build compiles against
// (cmake/cublaslt_enum_names.cmake writes the .inc files).
constexpr EnumName kTiles[] = {
    {CUBLASLT_MATMUL_TILE_UNDEFINED, "undefined"},
#include "cublaslt_matmul_tile.inc"
};
constexpr EnumName kStages[] = {
    {CUBLASLT_MATMUL_STAGES_UNDEFINED, "undefined"},
#include "cublaslt_matmul_stages.inc"
};
constexpr EnumName kClusters[] = {
    {CUBLASLT_CLUSTER_SHAPE_AUTO, "auto"},
#include "cublaslt_cluster_shape.inc"
};

constexpr EnumName kReductions[] = {
    {CUBLASLT_REDUCTION_SCHEME_NONE, "none"},
    {CUBLASLT_REDUCTION_SCHEME_INPLACE, "inplace"},
    {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, "compute_type"},
    {CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, "output_type"},
};

// A few hundred entries, looked up a few times per shape: a linear search is plenty.
std::string lookup(std::span<const EnumName> names, std::uint32_t value) {
  for (const auto& entry : names)
    if (entry.value == value) return entry.name;
  return fmt::format("unknown({})", value);
}

}  // namespace

std::string lt_tile_name(std::uint32_t tile_id) { return lookup(kTiles, tile_id); }
std::string lt_stages_name(std::uint32_t stages_id) { return lookup(kStages, stages_id); }
std::string lt_cluster_name(std::uint32_t cluster_id) { return lookup(kClusters, cluster_id); }
std::string lt_reduction_name(std::uint32_t scheme) { return lookup(kReductions, scheme); }

}  // namespace cl2
