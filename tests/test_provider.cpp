// Provider names are what databases, exports and bench files hold: their spellings are fixed, each
// reads back as its provider, and the results committed under db/results read and render unchanged
// (the JSON and Markdown exports, and bench.csv and speedups.csv from the bench's run.json).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench/bench_renderers.hpp"
#include "bench/bench_report.hpp"
#include "core/provider.hpp"
#include "report/best_kernel_table.hpp"
#include "report/export.hpp"
#include "support/run_tool.hpp"

using namespace cl2;

namespace {

const std::vector<std::pair<Provider, std::string>> kStoredNames = {
    {Provider::Ours, "ours"},
    {Provider::Runtime, "runtime"},
    {Provider::CublasNn, "cublas_nn"},
    {Provider::CublasTn, "cublas_tn"},
    {Provider::CublasMax, "cublas_max"},
    {Provider::CublasltHeuristic, "cublaslt_heuristic"},
    {Provider::CublasltAutotune, "cublaslt_autotune"},
    {Provider::Torch, "torch"},
};

std::string committed(const std::string& relative) {
  std::ifstream in(cl2_test::source_path(relative), std::ios::binary);
  EXPECT_TRUE(in) << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(Provider, NamesAreTheStoredSpellingsAndReadBack) {
  for (const auto& [provider, name] : kStoredNames) {
    EXPECT_EQ(to_string(provider), name);
    EXPECT_EQ(find_provider(name), provider) << name;
    EXPECT_EQ(parse_provider(name), provider) << name;
  }
  EXPECT_EQ(provider_title(Provider::CublasltAutotune), "cuBLASLt-autotune");
  EXPECT_EQ(provider_title(Provider::Runtime), "runtime (libcl2)");
  EXPECT_EQ(cublas_gemm_ex(Layout::NN), Provider::CublasNn);
  EXPECT_EQ(cublas_gemm_ex(Layout::TN), Provider::CublasTn);
  EXPECT_EQ(provider_names({Provider::Ours, Provider::Torch}), "ours, torch");
}

TEST(Provider, UnknownNamesAreRefused) {
  EXPECT_FALSE(find_provider("cutlass").has_value());
  EXPECT_FALSE(find_provider("cuBLAS-max").has_value());  // a title, not a stored name
  EXPECT_THROW(parse_provider("cutlass"), std::invalid_argument);
}

TEST(Provider, CommittedExportsReadAndRenderUnchanged) {
  for (const char* name : {"h200-grid125", "h200-quickstart", "h200-square"}) {
    const std::string json_path = cl2_test::source_path(std::string("db/results/") + name + ".json");
    const auto rows = read_best_kernel_table(json_path);
    ASSERT_FALSE(rows.empty()) << name;
    // EXPECT_TRUE: a mismatch would print both whole files.
    EXPECT_TRUE(render_export(rows, ExportFormat::Json) == committed(std::string("db/results/") + name + ".json"))
        << name;
    EXPECT_TRUE(render_export(rows, ExportFormat::Markdown) ==
                committed(std::string("db/results/") + name + ".md"))
        << name;
  }
}

TEST(Provider, CommittedBenchRunRendersTheCommittedTables) {
  const BenchRun run = read_bench_run(cl2_test::source_path("db/results/h200-bench-grid125/run.json"));
  const BenchView view = make_bench_view(run);
  EXPECT_TRUE(render_bench_csv(view) == committed("db/results/h200-bench-grid125/bench.csv"));
  EXPECT_TRUE(render_speedups_csv(view) == committed("db/results/h200-bench-grid125/speedups.csv"));
}
