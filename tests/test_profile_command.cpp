// `profile` and `tune --counters` on the CPU, with the fake worker standing in for the GPU (its
// counters are made up, but only where CUPTI's profiler starts, through the real loader): without
// CUPTI and without permission (the refusing stand-in library) `profile` says so in one line with
// the fix, exits non-zero and writes nothing, while `tune --counters` goes on and records the
// counters as absent; where the profiler starts, `profile` prints ours next to the library with
// each limiter and stores both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "gpu/nvml_clocks.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

const Problem kSmall{{64, 64, 64}, Layout::TN, Accum::F32};
const std::string kNoCupti = "CL2_CUPTI_LIBRARY=/nonexistent/libcupti.so";

std::string refusing_cupti() { return "CL2_CUPTI_LIBRARY=" + fake_cupti_library(); }
std::string allowing_cupti() { return refusing_cupti() + " CL2_FAKE_CUPTI_PROFILER=allow"; }

std::string family_file() { return " --space-file " + source_path("tests/data/spaces/naive_many.json"); }

// Tunes 64x64x64 into the folder's database with the fake worker; `extra` adds options.
CommandResult tune_small(const ScratchDir& dir, const std::string& extra = "", const std::string& env = "") {
  return run_tool("tune --fake-gpu --max-candidates 0 --shapes " + dir.write("shapes.json", "[[64, 64, 64]]") +
                      " --db " + dir.file("t.sqlite") + test_family_args("naive_many") + extra,
                  dir, env);
}

CommandResult profile(const ScratchDir& dir, const std::string& env, const std::string& mnk = "64 64 64",
                      const std::string& extra = "") {
  return run_tool("profile " + mnk + " --fake-gpu --db " + dir.file("t.sqlite") + family_file() + extra, dir, env);
}

// The line of `text` that holds `needle`, or "".
std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return "";
  const auto start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

std::vector<CountersRecord> stored_counters(const ScratchDir& dir, const Problem& problem = kSmall) {
  const auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
  return db->counters(db->devices().at(0).first, problem);
}

}  // namespace

TEST(ProfileCommand, WithoutCuptiSaysSoInOneLineWithTheFixAndWritesNothing) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir).status, 0);
  const auto db_before = cl2::test::read_bytes(dir.file("t.sqlite"));
  const auto result = profile(dir, kNoCupti);
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(line_count(result.err), 1) << result.err;
  CL2_EXPECT_CONTAINS(result.err, "profile 64x64x64 tn f32: no counters: CUPTI could not be loaded");
  CL2_EXPECT_CONTAINS(result.err, "set CL2_CUPTI_LIBRARY");
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(cl2::test::read_bytes(dir.file("t.sqlite")), db_before);
}

TEST(ProfileCommand, WithoutPermissionSaysSoInOneLineWithTheFix) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir).status, 0);
  const auto result = profile(dir, refusing_cupti());
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(line_count(result.err), 1) << result.err;
  CL2_EXPECT_CONTAINS(result.err, "cuptiProfilerInitialize failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)");
  CL2_EXPECT_CONTAINS(result.err, "NVreg_RestrictProfilingToAdminUsers=0");
  EXPECT_TRUE(stored_counters(dir).empty());
}

TEST(ProfileCommand, PrintsOursNextToTheLibraryWithTheirLimitersAndStoresBoth) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir).status, 0);
  const auto result = profile(dir, allowing_cupti());
  ASSERT_EQ(result.status, 0) << result.err;
  CL2_EXPECT_CONTAINS(result.out, "64x64x64 tn f32 on Fake GPU (cuda-l2-tune tests)");
  CL2_EXPECT_CONTAINS(result.out, "cuBLASLt-autotune: algo 66 64x32");
  CL2_EXPECT_CONTAINS(result.out, "(the algorithm tune chose)");
  for (const auto& metric : kCounterMetrics) CL2_EXPECT_CONTAINS(result.out, std::string(metric.label));
  const std::string dram_read = line_with(result.out, "DRAM read (MB)");  // 8e6 bytes each, shown in MB
  EXPECT_NE(dram_read.find("8.0"), dram_read.rfind("8.0")) << result.out;
  CL2_EXPECT_CONTAINS(result.out, "limiter, cuBLASLt-autotune: latency (no unit at 60% of peak");
  CL2_EXPECT_CONTAINS(result.out, "limiter, ours:");

  const auto rows = stored_counters(dir);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_TRUE(row.counters.measured()) << row.counters.absent;
    EXPECT_EQ(row.provider == Provider::Ours, row.kernel_id > 0);
  }
}

TEST(ProfileCommand, AShapeWithoutAWinnerIsAOneLineErrorNamingTheFix) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir).status, 0);
  const auto result = profile(dir, allowing_cupti(), "128 64 64");
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(line_count(result.err), 1) << result.err;
  CL2_EXPECT_CONTAINS(result.err, "no winner for 128x64x64 tn f32 on Fake GPU (cuda-l2-tune tests); tune the shape first");
  const auto zero = profile(dir, allowing_cupti(), "0 64 64");
  EXPECT_EQ(zero.status, 2);
  CL2_EXPECT_CONTAINS(zero.err, "dimension 0 is not positive");
}

// A shape tuned only rotated: `profile --l2 rotate` profiles its winner and stores the counters
// under that problem; plain `profile` asks for the warm one, which has no winner.
TEST(ProfileCommand, L2PicksTheProblemWhoseWinnerIsProfiled) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir, " --l2 rotate").status, 0);
  const auto result = profile(dir, allowing_cupti(), "64 64 64", " --l2 rotate");
  ASSERT_EQ(result.status, 0) << result.err;
  CL2_EXPECT_CONTAINS(result.out, "64x64x64 tn f32 l2 rotate on Fake GPU (cuda-l2-tune tests)");
  const Problem rotate{{64, 64, 64}, Layout::TN, Accum::F32, L2Policy::Rotate};
  EXPECT_EQ(stored_counters(dir, rotate).size(), 2u);
  EXPECT_TRUE(stored_counters(dir).empty());
  const auto warm = profile(dir, allowing_cupti());
  EXPECT_EQ(warm.status, 2);
  CL2_EXPECT_CONTAINS(warm.err, "no winner for 64x64x64 tn f32 on Fake GPU");
  const auto bad = profile(dir, allowing_cupti(), "64 64 64", " --l2 hot");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(line_count(bad.err), 1) << bad.err;
  CL2_EXPECT_CONTAINS(bad.err, "--l2: unknown L2 policy 'hot'");
}

TEST(TuneClocks, TheJsonExportShowsTheClocksTheWinnerWasMeasuredAt) {
  ScratchDir dir;
  ASSERT_EQ(tune_small(dir).status, 0);
  const auto json = run_tool("export --format json --db " + dir.file("t.sqlite"), dir);
  ASSERT_EQ(json.status, 0) << json.err;
  const auto kernel = nlohmann::json::parse(json.out).at("devices")[0].at("kernels")[0];
  EXPECT_EQ(kernel.at("clocks_measured"), nlohmann::json({{"sm_mhz", 1980.0}, {"throttled_rounds_discarded", 2}}));
}

TEST(TuneClocks, OnlySlowdownReasonsCountAsThrottling) {
  EXPECT_FALSE(throttling(0));
  // idle, application clocks, power cap (the steady state under GEMM load), sync boost, display
  EXPECT_FALSE(throttling(0x1 | 0x2 | 0x4 | 0x10 | 0x100));
  for (const unsigned long long reason : {0x8ull, 0x20ull, 0x40ull, 0x80ull})
    EXPECT_TRUE(throttling(reason | 0x1)) << reason;
}

TEST(TuneCounters, WithoutCuptiTuningGoesOnAndRecordsTheCountersAbsent) {
  ScratchDir dir;
  const auto tuned = tune_small(dir, " --counters", kNoCupti);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  CL2_EXPECT_CONTAINS(tuned.err, "counters not measured, recorded as absent: CUPTI could not be loaded");
  const auto rows = stored_counters(dir);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) CL2_EXPECT_CONTAINS(row.counters.absent, "CUPTI could not be loaded");
}

TEST(TuneCounters, WhereTheProfilerStartsTheWinnersCountersAreStored) {
  ScratchDir dir;
  const auto tuned = tune_small(dir, " --counters", allowing_cupti());
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_EQ(tuned.err.find("counters not measured"), std::string::npos) << tuned.err;
  const auto rows = stored_counters(dir);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) EXPECT_TRUE(row.counters.measured()) << row.counters.absent;
}
