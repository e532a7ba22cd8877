// cuBLASLt's algorithm configuration without a GPU: the enums decode to the names cublasLt.h gives
// them (the tables are generated from that header), and the plain LtAlgoConfig renders as text and
// JSON, with an absent config rendered as absent.
#include <cublasLt.h>
#include <gtest/gtest.h>

#include "core/lt_algo_config.hpp"
#include "db_test_support.hpp"
#include "gpu/lt_algo_names.hpp"

using namespace cl2;
using nlohmann::json;

TEST(LtAlgoNames, EnumsDecodeToTheirHeaderNames) {
  const std::pair<std::string, std::string> decoded[] = {
      {lt_tile_name(CUBLASLT_MATMUL_TILE_128x64), "128x64"},
      {lt_tile_name(CUBLASLT_MATMUL_TILE_8x8), "8x8"},
      {lt_tile_name(CUBLASLT_MATMUL_TILE_UNDEFINED), "undefined"},
      {lt_stages_name(CUBLASLT_MATMUL_STAGES_64xAUTO), "64xAUTO"},
      {lt_stages_name(CUBLASLT_MATMUL_STAGES_32x10), "32x10"},
      {lt_stages_name(CUBLASLT_MATMUL_STAGES_UNDEFINED), "undefined"},
      {lt_cluster_name(CUBLASLT_CLUSTER_SHAPE_2x1x1), "2x1x1"},
      {lt_cluster_name(CUBLASLT_CLUSTER_SHAPE_1x15x1), "1x15x1"},
      {lt_cluster_name(CUBLASLT_CLUSTER_SHAPE_AUTO), "auto"},
      {lt_reduction_name(CUBLASLT_REDUCTION_SCHEME_NONE), "none"},
      {lt_reduction_name(CUBLASLT_REDUCTION_SCHEME_INPLACE), "inplace"},
      {lt_reduction_name(CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE), "compute_type"},
      {lt_reduction_name(CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE), "output_type"},
  };
  for (const auto& [got, want] : decoded) EXPECT_EQ(got, want);
}

TEST(LtAlgoNames, EveryTileOfTheHeaderIsNamed) {
  for (std::uint32_t tile = 0; tile < CUBLASLT_MATMUL_TILE_END; ++tile)
    EXPECT_EQ(lt_tile_name(tile).find("unknown"), std::string::npos) << tile;
  for (std::uint32_t cluster = 2; cluster < CUBLASLT_CLUSTER_SHAPE_END; ++cluster)  // 1 is unused
    EXPECT_EQ(lt_cluster_name(cluster).find("unknown"), std::string::npos) << cluster;
}

TEST(LtAlgoNames, ValuesThisHeaderDoesNotNameKeepTheirNumber) {
  EXPECT_EQ(lt_tile_name(100000), "unknown(100000)");
  EXPECT_EQ(lt_stages_name(9999), "unknown(9999)");
  EXPECT_EQ(lt_cluster_name(9999), "unknown(9999)");
  EXPECT_EQ(lt_reduction_name(3), "unknown(3)");
}

TEST(LtAlgoConfig, RendersAsFieldsAndSummary) {
  const LtAlgoConfig config = test::test_lt_algo(4);
  const auto fields = lt_algo_field_texts(config, "-");
  EXPECT_EQ(fields, (std::array<std::string, kLtAlgoFieldCount>{"66", "64x32", "64xAUTO", "4", "inplace", "0", "3",
                                                                 "1x2x1"}));
  EXPECT_EQ(lt_algo_summary(config, "-"), "algo 66 64x32 stages 64xAUTO split-K 4 (inplace) swizzle 0 custom 3 cluster 1x2x1");
}

TEST(LtAlgoConfig, AbsentRendersAsThePlaceholder) {
  for (const auto& text : lt_algo_field_texts(std::nullopt, "-")) EXPECT_EQ(text, "-");
  EXPECT_EQ(lt_algo_summary(std::nullopt, "-"), "-");
  EXPECT_TRUE(lt_algo_to_json(std::nullopt).is_null());
}

TEST(LtAlgoConfig, JsonRoundTripsAndMissingMeansAbsent) {
  const LtAlgoConfig config = test::test_lt_algo(2, "2x1x1");
  const json written = {{"algo", lt_algo_to_json(config)}, {"none", lt_algo_to_json(std::nullopt)}};
  const json read = json::parse(written.dump());
  EXPECT_EQ(read.at("algo").at("tile"), "64x32");
  EXPECT_EQ(read.at("algo").at("splitk"), 2);
  EXPECT_EQ(lt_algo_at(read, "algo"), config);
  EXPECT_EQ(lt_algo_at(read, "none"), std::nullopt);
  EXPECT_EQ(lt_algo_at(read, "missing"), std::nullopt);
  EXPECT_THROW(lt_algo_at(json{{"algo", {{"tile", "64x32"}}}}, "algo"), json::exception);
}
