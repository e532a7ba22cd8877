#pragma once
// What cuBLASLt ran for a baseline: an algorithm's configuration as cublasLtMatmulAlgoConfig-
// GetAttribute reports it, the enums decoded to the text of their names in cublasLt.h. This is
// plain data (no CUDA header) because the database, the worker protocol and the exports carry it
// on machines without a GPU; the query lives in gpu/lt_algo_query.
//
// cuBLASLt sees our row-major C = A * B as column-major C^T = B^T * A^T, so its tile "AxB" is A
// along our N by B along our M, and its cluster "1x2x1" pairs CTAs along our M (DESIGN.md).
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace cl2 {

struct LtAlgoConfig {
  int algo_id = 0;        // CUBLASLT_ALGO_CONFIG_ID, raw
  std::string tile;       // "128x64"; "undefined" for CUBLASLT_MATMUL_TILE_UNDEFINED
  std::string stages;     // "64x4", "64xAUTO"
  int splitk = 1;         // K splits (1 = none)
  std::string reduction;  // how split-K slices are summed: none, inplace, compute_type, output_type
  int swizzle = 0;        // CTA swizzling (0 or 1)
  int custom = 0;         // the algorithm's custom option
  std::string cluster;    // "2x1x1"; "auto" where cuBLASLt picks
  bool operator==(const LtAlgoConfig&) const = default;
};

// The fields in one fixed order and spelling: JSON keys, CSV column suffixes, database columns
// ("lt_" + name) and table headings all follow it.
inline constexpr std::size_t kLtAlgoFieldCount = 8;
inline constexpr std::array<std::string_view, kLtAlgoFieldCount> kLtAlgoFieldNames = {
    "algo_id", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "cluster"};

// The fields as text in kLtAlgoFieldNames order; every one `absent` when there is no config (a
// provider that is not cuBLASLt, a row measured before algorithms were recorded, a failed query).
std::array<std::string, kLtAlgoFieldCount> lt_algo_field_texts(const std::optional<LtAlgoConfig>& config,
                                                               std::string_view absent);

// "algo 66 64x32 stages 64xAUTO split-K 1 (none) swizzle 0 custom 3 cluster 1x2x1", or `absent`.
std::string lt_algo_summary(const std::optional<LtAlgoConfig>& config, std::string_view absent);

// An object keyed by kLtAlgoFieldNames (numbers for the numeric fields), or null when absent.
nlohmann::json lt_algo_to_json(const std::optional<LtAlgoConfig>& config);
// The config that lt_algo_to_json wrote at `key` of `object`; nullopt where the key is missing (a
// document written before algorithms were recorded) or null. Throws nlohmann::json::exception for
// an object with a missing or mistyped field.
std::optional<LtAlgoConfig> lt_algo_at(const nlohmann::json& object, const std::string& key);

}  // namespace cl2
