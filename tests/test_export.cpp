#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "db_test_support.hpp"
#include "report/best_kernel_table.hpp"
#include "report/csv.hpp"
#include "report/export.hpp"

using namespace cl2;
using namespace cl2::test;
using nlohmann::json;

namespace {

WinnerRow row(const Problem& problem, double time_us, double nn_us, double tn_us,
              double autotune_us, const std::string& device = "NVIDIA H200") {
  WinnerRow r{test_device(device), test_winner(problem, time_us, nn_us, tn_us, autotune_us),
              test_kernel(problem.shape.m >= 4096 ? 256 : 128), std::nullopt, std::nullopt, {}};
  r.winner.measured_at = "2026-12-01T03:04:05Z";
  return r;
}

// One small, two mid and one large shape; one with no cuBLAS TN and no cuBLASLt-autotune time.
std::vector<WinnerRow> four_winners() {
  return {
      row(test_problem(256, 256, 256), 10.0, 12.0, 11.0, 9.0),               // 1.1, 0.9
      row(test_problem(1024, 1024, 1024), 20.0, 30.0, 25.0, 22.0),           // 1.25, 1.1
      row(test_problem(2048, 2048, 1024, Layout::NN, Accum::F16), 40.0, 50.0,
          kNotMeasured, kNotMeasured),                                       // 1.25, -
      row(test_problem(8192, 8192, 8192), 1000.0, 1200.0, 1100.0, 1050.0),  // 1.1, 1.05
  };
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    result.push_back(text.substr(start, end - start));
  return result;
}

}  // namespace

TEST(Export, ParsesFormatNames) {
  EXPECT_EQ(parse_export_format("json"), ExportFormat::Json);
  EXPECT_EQ(parse_export_format("csv"), ExportFormat::Csv);
  EXPECT_EQ(parse_export_format("md"), ExportFormat::Markdown);
  try {
    parse_export_format("xml");
    FAIL() << "xml accepted";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "--format xml: unknown format; use json, csv, md, bundle or cpp");
  }
}

TEST(Export, JsonHoldsKernelsBaselinesAndGeomeans) {
  const json doc = json::parse(render_export(four_winners(), ExportFormat::Json));
  EXPECT_EQ(doc.at("format"), "cuda-l2-tune/best-kernels");
  EXPECT_EQ(doc.at("version"), 1);
  ASSERT_EQ(doc.at("devices").size(), 1u);
  const json& device = doc["devices"][0];
  EXPECT_EQ(device.at("device").at("name"), "NVIDIA H200");
  EXPECT_EQ(device.at("device").at("num_sms"), 132);

  const json& summary = device.at("summary");
  EXPECT_EQ(summary.at("overall").at("count"), 4);
  EXPECT_NEAR(summary["overall"]["geomean_vs_cublas_max"].get<double>(),
              std::pow(1.1 * 1.25 * 1.25 * 1.1, 1.0 / 4), 1e-12);
  EXPECT_NEAR(summary["overall"]["geomean_vs_cublaslt_autotune"].get<double>(),
              std::pow(0.9 * 1.1 * 1.05, 1.0 / 3), 1e-12);
  EXPECT_EQ(summary.at("small").at("count"), 1);
  EXPECT_NEAR(summary["small"]["geomean_vs_cublaslt_autotune"].get<double>(), 0.9, 1e-12);
  EXPECT_EQ(summary.at("mid").at("count"), 2);
  EXPECT_NEAR(summary["mid"]["geomean_vs_cublas_max"].get<double>(), 1.25, 1e-12);
  EXPECT_NEAR(summary["mid"]["geomean_vs_cublaslt_autotune"].get<double>(), 1.1, 1e-12);
  EXPECT_EQ(summary.at("large").at("count"), 1);
  EXPECT_NEAR(summary["large"]["geomean_vs_cublaslt_autotune"].get<double>(), 1.05, 1e-12);

  const json& kernels = device.at("kernels");
  ASSERT_EQ(kernels.size(), 4u);
  const json& small = kernels[0];
  EXPECT_EQ(small.at("m"), 256);
  EXPECT_EQ(small.at("layout"), "tn");
  EXPECT_EQ(small.at("accum"), "f32");
  EXPECT_EQ(small.at("family"), "sm90");
  EXPECT_EQ(small.at("config").at("params").at("BM"), 128);  // an object, not a string
  EXPECT_EQ(small.at("arch"), "sm_90a");
  EXPECT_EQ(small.at("registers"), 168);
  EXPECT_DOUBLE_EQ(small.at("time_us").get<double>(), 10.0);
  EXPECT_NEAR(small.at("tflops").get<double>(), 2.0 * 256 * 256 * 256 / 10e-6 / 1e12, 1e-9);
  EXPECT_DOUBLE_EQ(small.at("baselines_us").at("cublas_max").get<double>(), 11.0);
  EXPECT_NEAR(small.at("speedup").at("vs_cublas_max").get<double>(), 1.1, 1e-12);
  EXPECT_EQ(small.at("size_class"), "small");
  EXPECT_EQ(small.at("measured_at"), "2026-12-01T03:04:05Z");

  const json& unmeasured = kernels[2];
  EXPECT_EQ(unmeasured.at("layout"), "nn");
  EXPECT_EQ(unmeasured.at("accum"), "f16");
  EXPECT_TRUE(unmeasured.at("baselines_us").at("cublas_tn").is_null());
  EXPECT_DOUBLE_EQ(unmeasured.at("baselines_us").at("cublas_max").get<double>(), 50.0);
  EXPECT_TRUE(unmeasured.at("speedup").at("vs_cublaslt_autotune").is_null());
  EXPECT_EQ(kernels[3].at("size_class"), "large");
}

TEST(Export, JsonGroupsRowsByDevice) {
  auto rows = four_winners();
  rows.push_back(row(test_problem(64, 64, 64), 5.0, 6.0, 6.0, 6.0, "NVIDIA A100-SXM4-80GB"));
  const json doc = json::parse(render_export(rows, ExportFormat::Json));
  ASSERT_EQ(doc.at("devices").size(), 2u);
  EXPECT_EQ(doc["devices"][0]["kernels"].size(), 4u);
  EXPECT_EQ(doc["devices"][1]["device"]["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(doc["devices"][1]["summary"]["mid"]["count"], 0);
  EXPECT_TRUE(doc["devices"][1]["summary"]["mid"]["geomean_vs_cublas_max"].is_null());
}

TEST(Export, CsvHasHeaderAndOneRowPerWinner) {
  auto rows = four_winners();
  rows[3].winner.time_us = 5123.4567;
  const auto csv = lines(render_export(rows, ExportFormat::Csv));
  ASSERT_EQ(csv.size(), 5u);
  const auto header = split_csv_line(csv[0]);
  EXPECT_EQ(header.front(), "device");
  auto column = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  for (std::size_t i = 1; i < csv.size(); ++i) {
    const auto fields = split_csv_line(csv[i]);
    ASSERT_EQ(fields.size(), header.size()) << csv[i];
    EXPECT_EQ(fields[0], "NVIDIA H200");
    EXPECT_EQ(json::parse(fields[column("config")]).at("family"), "sm90");
  }
  const auto large = split_csv_line(csv[4]);
  EXPECT_EQ(large[column("m")], "8192");
  EXPECT_EQ(large[column("time_us")], "5123.457");
  EXPECT_EQ(large[column("cublas_max_us")], "1100.000");
  EXPECT_EQ(large[column("speedup_vs_cublas_max")], "0.2147");
  EXPECT_EQ(split_csv_line(csv[3])[column("cublaslt_autotune_us")], "");  // not measured
}

TEST(Export, MarkdownHasDeviceSummaryAndShapes) {
  const std::string md = render_export(four_winners(), ExportFormat::Markdown);
  CL2_EXPECT_CONTAINS(md, "## NVIDIA H200 (sm_90, 132 SMs)");
  EXPECT_NE(md.find("cuBLAS 13.1.0"), std::string::npos);
  CL2_EXPECT_CONTAINS(md, "| class   | shapes | geomean vs cuBLAS-max | geomean vs cuBLASLt-autotune |");
  CL2_EXPECT_CONTAINS(md, "| overall |      4 |                1.173x |");
  CL2_EXPECT_CONTAINS(md, "| mid     |      2 |                1.250x |");
  CL2_EXPECT_CONTAINS(md, "BK=64 BM=256 BN=256 STAGES=4");
  CL2_EXPECT_CONTAINS(md, "| 8192 | 8192 | 8192 |");
}

TEST(Export, EmptyTableIsStillAValidDocument) {
  const json doc = json::parse(render_export({}, ExportFormat::Json));
  EXPECT_TRUE(doc.at("devices").is_array());
  EXPECT_TRUE(doc.at("devices").empty());
  EXPECT_EQ(lines(render_export({}, ExportFormat::Csv)).size(), 1u);
  EXPECT_NE(render_export({}, ExportFormat::Markdown).find("no winners"), std::string::npos);
}

namespace {

// Rows measured with algorithms recorded: the heuristic's and autotune's of the large shape, only
// autotune's of the 1024^3 one; the other two were measured before algorithms were recorded.
std::vector<WinnerRow> winners_with_algorithms() {
  auto rows = four_winners();
  rows[1].cublaslt_autotune_algo = test_lt_algo(4, "2x1x1");
  rows[3].cublaslt_heuristic_algo = test_lt_algo(1, "1x4x1");
  rows[3].cublaslt_autotune_algo = test_lt_algo();
  return rows;
}

}  // namespace

TEST(Export, JsonHoldsEachCublasltAlgorithmOrNull) {
  const auto rows = winners_with_algorithms();
  const json doc = json::parse(render_export(rows, ExportFormat::Json));
  const json& kernels = doc["devices"][0]["kernels"];
  EXPECT_FALSE(kernels[0].contains("cublaslt_algos"));  // measured before: left out, as exports were
  EXPECT_TRUE(kernels[1]["cublaslt_algos"]["cublaslt_heuristic"].is_null());
  EXPECT_EQ(kernels[1]["cublaslt_algos"]["cublaslt_autotune"]["splitk"], 4);
  EXPECT_EQ(kernels[1]["cublaslt_algos"]["cublaslt_autotune"]["reduction"], "inplace");
  EXPECT_EQ(kernels[3]["cublaslt_algos"]["cublaslt_heuristic"]["cluster"], "1x4x1");
  EXPECT_EQ(kernels[3]["cublaslt_algos"]["cublaslt_autotune"]["algo_id"], 66);
  EXPECT_EQ(kernels[3]["cublaslt_algos"]["cublaslt_autotune"]["stages"], "64xAUTO");

  // What compare reads back from the export is what was written.
  const auto read = parse_export_json(render_export(rows, ExportFormat::Json), "export.json");
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(read[i].cublaslt_heuristic_algo, rows[i].cublaslt_heuristic_algo) << i;
    EXPECT_EQ(read[i].cublaslt_autotune_algo, rows[i].cublaslt_autotune_algo) << i;
  }
}

TEST(Export, CsvAppendsEachCublasltAlgorithmsFieldsEmptyWhereAbsent) {
  const auto csv = lines(render_export(winners_with_algorithms(), ExportFormat::Csv));
  const auto header = split_csv_line(csv[0]);
  ASSERT_EQ(header.size(), 26u + 2 * kLtAlgoFieldCount + std::size(kBaselineProviders));
  EXPECT_EQ(header[25], "measured_at");  // the columns before stay where they were
  EXPECT_EQ(header[26], "cublaslt_heuristic_algo_id");
  EXPECT_EQ(header[25 + 2 * kLtAlgoFieldCount], "cublaslt_autotune_cluster");
  auto column = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  EXPECT_EQ(split_csv_line(csv[1])[column("cublaslt_autotune_tile")], "");
  EXPECT_EQ(split_csv_line(csv[2])[column("cublaslt_heuristic_tile")], "");
  EXPECT_EQ(split_csv_line(csv[2])[column("cublaslt_autotune_splitk")], "4");
  EXPECT_EQ(split_csv_line(csv[2])[column("cublaslt_autotune_cluster")], "2x1x1");
  EXPECT_EQ(split_csv_line(csv[4])[column("cublaslt_heuristic_cluster")], "1x4x1");
  EXPECT_EQ(split_csv_line(csv[4])[column("cublaslt_autotune_stages")], "64xAUTO");
}

TEST(Export, MarkdownListsCublasltAlgorithmsWithDashesWhereAbsent) {
  const std::string md = render_export(winners_with_algorithms(), ExportFormat::Markdown);
  CL2_EXPECT_CONTAINS(md, "cuBLASLt's algorithms");
  CL2_EXPECT_CONTAINS(md, "| algo_id | tile  | stages  | splitk | reduction | swizzle | custom | cluster |");
  CL2_EXPECT_CONTAINS(md, "|  256 |  256 |  256 | tn     | f32   | cuBLASLt-heuristic | -       | -     | -       |");
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | cuBLASLt-autotune  | 66      | 64x32 | 64xAUTO | 4      | "
                    "inplace   | 0       | 3      | 2x1x1   |");
  // A table measured before algorithms were recorded renders as it did.
  EXPECT_EQ(render_export(four_winners(), ExportFormat::Markdown).find("cuBLASLt's algorithms"), std::string::npos);
}

namespace {

const std::vector<std::string> kSplitKKernels = {"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN",
                                                 "splitKreduce_kernel"};

// The 1024^3 row traced in full, the large one for cuBLASLt-autotune only; the other two were
// measured before calls were traced.
std::vector<WinnerRow> winners_with_library_kernels() {
  auto rows = four_winners();
  rows[1].library_kernels = {{Provider::CublasNn, {"nvjet_sm90_hsh_128x64_64x4_1x2_h_bz_NNN"}},
                             {Provider::CublasTn, kSplitKKernels},
                             {Provider::CublasltHeuristic, {"nvjet_sm90_hsh_64x8_64x16_1x4_h_bz_TNN"}},
                             {Provider::CublasltAutotune, {"nvjet_sm90_hsh_64x32_64x16_1x2_h_bz_TNN"}}};
  rows[3].library_kernels = {{Provider::CublasltAutotune, {"nvjet_sm90_hsh_176x128_64x5_1x2_h_bz_TNN"}}};
  return rows;
}

}  // namespace

TEST(Export, JsonListsEachBaselinesKernelsAndLeavesThemOutWhereNotTraced) {
  const auto rows = winners_with_library_kernels();
  const json doc = json::parse(render_export(rows, ExportFormat::Json));
  const json& kernels = doc["devices"][0]["kernels"];
  EXPECT_FALSE(kernels[0].contains("baseline_kernels"));  // measured before: as exports were
  EXPECT_EQ(kernels[1]["baseline_kernels"]["cublas_tn"], json(kSplitKKernels));
  EXPECT_EQ(kernels[1]["baseline_kernels"]["cublaslt_heuristic"][0], "nvjet_sm90_hsh_64x8_64x16_1x4_h_bz_TNN");
  EXPECT_FALSE(kernels[3]["baseline_kernels"].contains("cublas_nn"));
  EXPECT_EQ(kernels[3]["baseline_kernels"]["cublaslt_autotune"].size(), 1u);

  const auto read = parse_export_json(render_export(rows, ExportFormat::Json), "export.json");
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(read[i].library_kernels, rows[i].library_kernels) << i;
}

TEST(Export, CsvHasOneKernelsColumnPerBaselineJoinedByPlus) {
  const auto csv = lines(render_export(winners_with_library_kernels(), ExportFormat::Csv));
  const auto header = split_csv_line(csv[0]);
  EXPECT_EQ(header.back(), "cublaslt_autotune_kernels");
  auto column = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  EXPECT_EQ(split_csv_line(csv[2])[column("cublas_tn_kernels")],
            "nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN+splitKreduce_kernel");
  EXPECT_EQ(split_csv_line(csv[1])[column("cublas_tn_kernels")], "");
  EXPECT_EQ(split_csv_line(csv[4])[column("cublas_nn_kernels")], "");
  EXPECT_EQ(split_csv_line(csv[4])[column("cublaslt_autotune_kernels")], "nvjet_sm90_hsh_176x128_64x5_1x2_h_bz_TNN");
}

TEST(Export, MarkdownTablesTheLibrariesKernelsWhereTraced) {
  const std::string md = render_export(winners_with_library_kernels(), ExportFormat::Markdown);
  CL2_EXPECT_CONTAINS(md, "Kernels the libraries ran");
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | nvjet_sm90_hsh_128x64_64x4_1x2_h_bz_NNN | "
                    "nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN + splitKreduce_kernel |");
  EXPECT_EQ(render_export(four_winners(), ExportFormat::Markdown).find("Kernels the libraries ran"), std::string::npos);
}

namespace {

// The four winners and the 1024^3 shape again, tuned rotated (slower: its operands came from DRAM).
std::vector<WinnerRow> winners_with_a_rotated_shape() {
  auto rows = four_winners();
  rows.insert(rows.begin() + 2, row(test_problem(1024, 1024, 1024, Layout::TN, Accum::F32, L2Policy::Rotate),
                                    26.0, 36.0, 31.0, 28.0));
  rows[2].cublaslt_autotune_algo = test_lt_algo();
  return rows;
}

}  // namespace

TEST(Export, AllWarmExportsNameNoL2Policy) {
  const auto rows = winners_with_algorithms();
  for (const auto& kernel : json::parse(render_export(rows, ExportFormat::Json))["devices"][0]["kernels"])
    EXPECT_FALSE(kernel.contains("l2")) << kernel.dump();
  EXPECT_EQ(split_csv_line(lines(render_export(rows, ExportFormat::Csv))[0]).back(), "cublaslt_autotune_kernels");
  const std::string md = render_export(rows, ExportFormat::Markdown);
  EXPECT_EQ(md.find("| l2"), std::string::npos) << md;
  EXPECT_EQ(md.find("l2 is where"), std::string::npos) << md;
  CL2_EXPECT_CONTAINS(md, "| 8192 | 8192 | 8192 | tn     | f32   | sm90   |");
}

TEST(Export, JsonNamesThePolicyOfRowsThatAreNotWarmAndReadsItBack) {
  const auto rows = winners_with_a_rotated_shape();
  const std::string text = render_export(rows, ExportFormat::Json);
  const json doc = json::parse(text);
  const json& kernels = doc["devices"][0]["kernels"];
  EXPECT_FALSE(kernels[1].contains("l2"));  // the same shape warm: no key, as before policies
  EXPECT_EQ(kernels[2].at("l2"), "rotate");
  EXPECT_EQ(doc["devices"][0]["summary"]["overall"]["count"], 5);

  const auto read = parse_export_json(text, "export.json");
  ASSERT_EQ(read.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(read[i].winner.problem, rows[i].winner.problem) << i;
  EXPECT_EQ(render_export(read, ExportFormat::Json), text);
}

TEST(Export, CsvAppendsAnL2ColumnWhereSomeRowIsNotWarm) {
  const auto csv = lines(render_export(winners_with_a_rotated_shape(), ExportFormat::Csv));
  ASSERT_EQ(csv.size(), 6u);
  const auto header = split_csv_line(csv[0]);
  EXPECT_EQ(header.back(), "l2");  // last, so every other column keeps its position
  EXPECT_EQ(header[header.size() - 2], "cublaslt_autotune_kernels");
  EXPECT_EQ(split_csv_line(csv[2]).back(), "warm");
  EXPECT_EQ(split_csv_line(csv[3]).back(), "rotate");
  EXPECT_EQ(split_csv_line(csv[3])[4], "1024");
}

TEST(Export, MarkdownHasAnL2ColumnInEveryShapeTableWhereSomeRowIsNotWarm) {
  auto rows = winners_with_a_rotated_shape();
  rows[2].library_kernels = {{Provider::CublasTn, {"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_TNN"}}};
  const std::string md = render_export(rows, ExportFormat::Markdown);
  CL2_EXPECT_CONTAINS(md, "l2 is where the operands were when each timed call started");
  CL2_EXPECT_CONTAINS(md, "|    M |    N |    K | layout | accum | l2     | family |");
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | warm   | sm90   |");
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | rotate | sm90   |");
  // cuBLASLt's algorithms, and the kernels the libraries ran.
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | rotate | cuBLASLt-autotune  | 66      | 64x32 |");
  CL2_EXPECT_CONTAINS(md, "| 1024 | 1024 | 1024 | tn     | f32   | rotate | -         | nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_TNN");
}
