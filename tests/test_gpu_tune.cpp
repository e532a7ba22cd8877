// Tuning on a real GPU: verification of the template families on edge shapes, and recovery from a
// variant that writes out of bounds. Skipped, with the reason, where no GPU is present.
#include <gtest/gtest.h>

#include "db/tuning_db.hpp"
#include "gpu/device_query.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

// GTEST_SKIP must be in the test body itself to end the test.
#define CL2_REQUIRE_GPU()                                                               \
  if (const std::string reason = gpu_unavailable_reason(0); !reason.empty()) GTEST_SKIP() << reason
#define CL2_REQUIRE_SM90() \
  if (device_cc() != 90) GTEST_SKIP() << "sm90 needs a compute capability 9.0 GPU"

namespace {

int device_cc() { return query_device(0).cc(); }

// Tunes `shapes` and checks that every shape got a verified winner and that no candidate gave a
// wrong answer or crashed (a candidate that does is a bug even when another one wins).
void expect_all_verified(const ScratchDir& dir, const std::string& shapes, const std::string& args) {
  const std::string db_path = dir.file("t.sqlite");
  const auto r = run_tool("tune --shapes " + dir.write("shapes.json", shapes) + " --db " + db_path + " " + args, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto db = TuningDb::open(db_path, DbMode::ReadOnly);
  const auto devices = db->devices();
  ASSERT_EQ(devices.size(), 1u);
  const auto problems = db->problems_with_trials(devices.front().first);
  ASSERT_FALSE(problems.empty());
  for (const auto& problem : problems) {
    EXPECT_TRUE(db->winner(devices.front().first, problem).has_value()) << problem.text();
    for (const auto& t : db->trials(devices.front().first, problem)) {
      const bool bad = t.status == TrialStatus::VerifyFailed || t.status == TrialStatus::Fault ||
                       t.status == TrialStatus::Timeout || t.status == TrialStatus::LaunchFailed;
      const auto kernel = db->kernel(t.kernel_id);
      EXPECT_FALSE(bad) << problem.text() << ": " << to_string(t.status) << " " << t.reason << " "
                        << (kernel ? kernel->config_json : "");
    }
  }
}

const char* kEdgeShapes =
    R"([[1, 1, 8], [3000, 4096, 4096], [64, 12288, 64], [4095, 4097, 4096], [130, 200, 72],
        {"m": 1000, "n": 1000, "k": 1000, "layout": "nn"}, {"m": 777, "n": 512, "k": 4096, "accum": "f16"},
        {"m": 256, "n": 4096, "k": 256, "layout": "nn", "accum": "f16"}])";

}  // namespace

TEST(GpuTune, Sm90VerifiesOnEdgeShapes) {
  CL2_REQUIRE_GPU();
  CL2_REQUIRE_SM90();
  ScratchDir dir;
  expect_all_verified(dir, kEdgeShapes, "--family sm90 --max-candidates 6");
}

TEST(GpuTune, Sm80VerifiesOnEdgeShapes) {
  CL2_REQUIRE_GPU();
  ScratchDir dir;
  expect_all_verified(dir, std::string(kEdgeShapes).insert(1, R"({"m": 333, "n": 335, "k": 77, "layout": "nn"}, )"),
                      "--family sm80 --max-candidates 6");
}

TEST(GpuTune, Sm90RefusesUnalignedNnWithAClearError) {
  CL2_REQUIRE_GPU();
  CL2_REQUIRE_SM90();
  ScratchDir dir;
  const auto r = run_tool("tune --family sm90 --layout nn --db " + dir.file("t.sqlite") + " --shapes " +
                              dir.write("s.json", "[[4095, 4097, 4096]]"),
                          dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("N % 8"), std::string::npos) << r.err;
}

TEST(GpuTune, OutOfBoundsVariantIsRecordedAsFailedAndTheRunFinishes) {
  CL2_REQUIRE_GPU();
  ScratchDir dir;
  const std::string db_path = dir.file("t.sqlite");
  const auto r = run_tool("tune --shapes " + dir.write("s.json", "[[256, 256, 256]]") + " --db " + db_path +
                              " --space-file " + source_path("tests/data/spaces/naive_fault.json") +
                              " --family naive_fault",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto db = TuningDb::open(db_path, DbMode::ReadOnly);
  const auto device = db->devices().front().first;
  const Problem problem{{256, 256, 256}, Layout::TN, Accum::F32};
  const auto trials = db->trials(device, problem);
  ASSERT_EQ(trials.size(), 2u);
  int faults = 0;
  for (const auto& t : trials) faults += t.status == TrialStatus::Fault;
  EXPECT_EQ(faults, 1);
  EXPECT_TRUE(db->winner(device, problem).has_value());
}
