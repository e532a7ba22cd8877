// Kernel traces through the whole tuning loop on the CPU, with the fake worker standing in for the
// GPU (its traces are made up, but taken only where CUPTI loads, through the real loader): the
// kernels reach the database, `show` and every export; a candidate whose trace shows a kernel on
// another stream is failed and never wins, a library baseline's flag is stored beside its kept
// time; and without CUPTI (CL2_CUPTI_LIBRARY naming no library) tune goes on, says why once, and
// records the traces as absent.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "db/tuning_db.hpp"
#include "gpu/cupti_api.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

#define CL2_REQUIRE_CUPTI()                                             \
  if (const CuptiLibrary& cupti = cupti_library(); !cupti.api) GTEST_SKIP() << cupti.unavailable

namespace {

const Problem kSmall{{64, 64, 64}, Layout::TN, Accum::F32};
const std::string kNoCupti = "CL2_CUPTI_LIBRARY=/nonexistent/libcupti.so";
const std::string kSplitK = "nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN";

std::string tune_args(const ScratchDir& dir, const std::string& family) {
  return "tune --fake-gpu --trace-kernels --max-candidates 0 --shapes " + dir.write("shapes.json", "[[64, 64, 64]]") +
         " --db " + dir.file("t.sqlite") + test_family_args(family);
}

struct Tuned {
  std::unique_ptr<TuningDb> db;
  std::int64_t device = 0;
};

Tuned open_tuned(const ScratchDir& dir) {
  Tuned t{TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly)};
  t.device = t.db->devices().at(0).first;
  return t;
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

}  // namespace

TEST(KernelTraceTune, KernelsReachTheDatabaseShowAndEveryExport) {
  CL2_REQUIRE_CUPTI();
  ScratchDir dir;
  const auto tuned = run_tool(tune_args(dir, "naive_many"), dir);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_EQ(tuned.err.find("kernel tracing off"), std::string::npos) << tuned.err;
  const Tuned t = open_tuned(dir);
  for (const auto& trial : t.db->trials(t.device, kSmall)) {
    ASSERT_TRUE(trial.trace.has_value());
    EXPECT_EQ(trial.trace->kernel_names(), std::vector<std::string>{"cl2_gemm"});
  }
  for (const auto& baseline : t.db->baselines(t.device, kSmall)) {
    ASSERT_TRUE(baseline.trace && baseline.trace->traced()) << to_string(baseline.provider);
    EXPECT_EQ(baseline.trace_flag, "") << to_string(baseline.provider);
  }

  const auto shown = run_tool("show --db " + dir.file("t.sqlite") + " 64 64 64", dir);
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("cublas_tn             50.00  " + kSplitK + " + splitKreduce_kernel"), std::string::npos)
      << shown.out;

  const auto json = run_tool("export --format json --db " + dir.file("t.sqlite"), dir);
  ASSERT_EQ(json.status, 0) << json.err;
  const auto kernel = nlohmann::json::parse(json.out).at("devices")[0].at("kernels")[0];
  EXPECT_EQ(kernel.at("baseline_kernels").at("cublas_tn"), nlohmann::json({kSplitK, "splitKreduce_kernel"}));
  EXPECT_EQ(kernel.at("baseline_kernels").at("cublaslt_autotune").size(), 1u);
  const auto csv = run_tool("export --format csv --db " + dir.file("t.sqlite"), dir);
  EXPECT_NE(csv.out.find(",cublas_nn_kernels,cublas_tn_kernels,cublaslt_heuristic_kernels,cublaslt_autotune_kernels\n"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find("," + kSplitK + "+splitKreduce_kernel,"), std::string::npos) << csv.out;
  const auto md = run_tool("export --format md --db " + dir.file("t.sqlite"), dir);
  EXPECT_NE(md.out.find("| " + kSplitK + " + splitKreduce_kernel |"), std::string::npos) << md.out;
}

TEST(KernelTraceTune, CandidateWithAKernelOnAnotherStreamFailsAndNeverWins) {
  CL2_REQUIRE_CUPTI();
  ScratchDir dir;
  const auto tuned = run_tool(tune_args(dir, "naive_side_stream"), dir);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const Tuned t = open_tuned(dir);
  const auto trials = t.db->trials(t.device, kSmall);
  ASSERT_EQ(trials.size(), 2u);
  std::int64_t flagged_kernel = 0;
  for (const auto& trial : trials) {
    const bool side_stream = t.db->kernel(trial.kernel_id)->config_json.find("\"FAULT\":5") != std::string::npos;
    if (!side_stream) {
      EXPECT_EQ(trial.status, TrialStatus::Ok) << trial.reason;
      continue;
    }
    flagged_kernel = trial.kernel_id;
    EXPECT_EQ(trial.status, TrialStatus::VerifyFailed);
    EXPECT_NE(trial.reason.find("launched cl2_gemm on a stream other than the one it was given"), std::string::npos)
        << trial.reason;
    EXPECT_FALSE(std::isnan(trial.time_us));  // its time stays on record
  }
  ASSERT_NE(flagged_kernel, 0);
  const auto winner = t.db->winner(t.device, kSmall);
  ASSERT_TRUE(winner.has_value());
  EXPECT_NE(winner->kernel_id, flagged_kernel);  // although the faster of the two
}

TEST(KernelTraceTune, FlaggedLibraryBaselineKeepsItsTimeBesideTheFlag) {
  CL2_REQUIRE_CUPTI();
  ScratchDir dir;
  const auto tuned = run_tool(tune_args(dir, "naive_many"), dir, "CL2_FAKE_SIDE_STREAM=cublas_nn");
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_NE(tuned.err.find("cublas_nn on 64x64x64 tn f32: launched splitKreduce_kernel on a stream other"),
            std::string::npos)
      << tuned.err;
  const Tuned t = open_tuned(dir);
  for (const auto& baseline : t.db->baselines(t.device, kSmall)) {
    const bool flagged = baseline.provider == Provider::CublasNn;
    EXPECT_EQ(baseline.trace_flag.empty(), !flagged) << to_string(baseline.provider) << ": " << baseline.trace_flag;
    // The final round's time (fake: 50, 51, 49, 48) replaced the baselines request's brief one (50).
    const std::map<Provider, double> final_times = {{Provider::CublasTn, 50.0}, {Provider::CublasNn, 51.0},
                                                    {Provider::CublasltHeuristic, 49.0},
                                                    {Provider::CublasltAutotune, 48.0}};
    EXPECT_DOUBLE_EQ(baseline.time_us, final_times.at(baseline.provider)) << to_string(baseline.provider);
  }
  EXPECT_DOUBLE_EQ(t.db->winner(t.device, kSmall)->cublas_nn_us, 51.0);
  const auto shown = run_tool("show --db " + dir.file("t.sqlite") + " 64 64 64", dir);
  EXPECT_NE(shown.out.find("launched splitKreduce_kernel on a stream other than the one it was given"), std::string::npos)
      << shown.out;
}

TEST(KernelTraceTune, WithoutCuptiTuneGoesOnAndRecordsTracesAsAbsent) {
  ScratchDir dir;
  const auto tuned = run_tool(tune_args(dir, "naive_many"), dir, kNoCupti);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_EQ(occurrences(tuned.err, "kernel tracing off"), 1u) << tuned.err;  // said once, not per call
  EXPECT_NE(tuned.err.find("/nonexistent/libcupti.so"), std::string::npos) << tuned.err;
  const Tuned t = open_tuned(dir);
  EXPECT_TRUE(t.db->winner(t.device, kSmall).has_value());
  const auto trials = t.db->trials(t.device, kSmall);
  ASSERT_FALSE(trials.empty());
  for (const auto& trial : trials) {
    EXPECT_EQ(trial.status, TrialStatus::Ok);
    ASSERT_TRUE(trial.trace.has_value());
    EXPECT_FALSE(trial.trace->traced());
    EXPECT_NE(trial.trace->absent.find("set CL2_CUPTI_LIBRARY"), std::string::npos) << trial.trace->absent;
  }
  for (const auto& baseline : t.db->baselines(t.device, kSmall)) {
    ASSERT_TRUE(baseline.trace.has_value());
    EXPECT_FALSE(baseline.trace->traced());
  }

  const auto shown = run_tool("show --db " + dir.file("t.sqlite") + " 64 64 64", dir, kNoCupti);
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("(not traced)"), std::string::npos) << shown.out;
  const auto json = run_tool("export --format json --db " + dir.file("t.sqlite"), dir, kNoCupti);
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_FALSE(nlohmann::json::parse(json.out).at("devices")[0].at("kernels")[0].contains("baseline_kernels"));
}

// Without --trace-kernels nothing is traced, nothing is flagged, and CUPTI is not asked for: the
// candidate that runs a kernel on another stream wins on its time like any other.
TEST(KernelTraceTune, ByDefaultNothingIsTracedAndCuptiIsNotLoaded) {
  ScratchDir dir;
  std::string args = tune_args(dir, "naive_side_stream");
  args.erase(args.find(" --trace-kernels"), std::string(" --trace-kernels").size());
  const auto tuned = run_tool(args, dir, kNoCupti);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_EQ(tuned.err.find("kernel tracing off"), std::string::npos) << tuned.err;
  EXPECT_EQ(tuned.err.find("CUPTI"), std::string::npos) << tuned.err;
  const Tuned t = open_tuned(dir);
  const auto trials = t.db->trials(t.device, kSmall);
  ASSERT_FALSE(trials.empty());
  for (const auto& trial : trials) {
    EXPECT_EQ(trial.status, TrialStatus::Ok) << trial.reason;
    EXPECT_FALSE(trial.trace.has_value());
  }
  for (const auto& baseline : t.db->baselines(t.device, kSmall)) EXPECT_FALSE(baseline.trace.has_value());
}

TEST(KernelTraceTune, CompileOnlyAndHelpNeedNoCupti) {
  ScratchDir dir;
  const auto compiled = run_tool("tune --compile-only --max-candidates 0 --shapes " +
                                     dir.write("shapes.json", "[[64, 64, 64]]") + test_family_args("naive_many"),
                                 dir, kNoCupti);
  EXPECT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_EQ(compiled.err.find("CUPTI"), std::string::npos) << compiled.err;
  EXPECT_EQ(run_tool("--help", dir, kNoCupti).status, 0);
}
