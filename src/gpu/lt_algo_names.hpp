#pragma once
// cuBLASLt's algorithm-configuration enums as the text of their names in cublasLt.h:
// CUBLASLT_MATMUL_TILE_128x64 -> "128x64", CUBLASLT_MATMUL_STAGES_64xAUTO -> "64xAUTO",
// CUBLASLT_CLUSTER_SHAPE_2x1x1 -> "2x1x1", CUBLASLT_REDUCTION_SCHEME_INPLACE -> "inplace".
// A value this build's header does not name (a newer cuBLASLt at run time) reads "unknown(N)",
// so nothing is lost.
#include <cstdint>
#include <string>

namespace cl2 {

std::string lt_tile_name(std::uint32_t tile_id);        // "undefined" for TILE_UNDEFINED
std::string lt_stages_name(std::uint32_t stages_id);    // "undefined" for STAGES_UNDEFINED
std::string lt_cluster_name(std::uint32_t cluster_id);  // "auto" for CLUSTER_SHAPE_AUTO
std::string lt_reduction_name(std::uint32_t scheme);    // none, inplace, compute_type, output_type

}  // namespace cl2
