// scripts/nightly.sh end to end on the CPU (fake GPU, a test family): a first run with nothing to
// compare with, a second judged against the first, a third against a baseline edited to be 20%
// faster (the regression must fail the job), and an interrupted run that resumes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

struct Nightly {
  const ScratchDir& dir;
  std::string shapes = dir.write("shapes.json", "[[256, 256, 256], [1024, 1024, 1024]]");
  std::string out = dir.file("artifacts");

  CommandResult run(const std::string& extra = "") const {
    return run_command("CUDA_L2_TUNE_CACHE=" + dir.file("cache") + " bash " + source_path("scripts/nightly.sh") + " " +
                           shapes + " --out " + out + " --tool " + tool_binary() + extra +
                           " -- --fake-gpu --max-candidates 2" + test_family_args("naive_many"),
                       dir);
  }
  std::string file(const std::string& name) const { return read_all(out + "/" + name); }
};

}  // namespace

TEST(Nightly, ComparesEachRunWithTheLastAndFailsOnARegression) {
  ScratchDir dir;
  const Nightly nightly{dir};

  const auto first = nightly.run();
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(nightly.file("summary.md").find("No baseline"), std::string::npos) << nightly.file("summary.md");
  for (const char* name : {"nightly.sqlite", "best-kernels.json", "best-kernels.md", "best-kernels.csv", "run-complete"})
    EXPECT_TRUE(std::filesystem::exists(nightly.out + "/" + name)) << name;

  const auto second = nightly.run();
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_TRUE(std::filesystem::exists(nightly.out + "/previous.json"));
  EXPECT_NE(nightly.file("summary.md").find("| unchanged       |      2 |"), std::string::npos) << nightly.file("summary.md");
  EXPECT_NE(nightly.file("junit.xml").find("tests=\"2\" failures=\"0\""), std::string::npos) << nightly.file("junit.xml");

  // A baseline in which one winner was 20% faster: tonight's is a regression.
  auto faster = nlohmann::json::parse(nightly.file("best-kernels.json"));
  auto& kernel = faster["devices"][0]["kernels"][0];
  kernel["time_us"] = kernel["time_us"].get<double>() * 0.8;
  const auto third = nightly.run(" --baseline " + dir.write("faster.json", faster.dump()));
  EXPECT_EQ(third.status, 1) << third.err;
  EXPECT_NE(nightly.file("summary.md").find("regressed"), std::string::npos) << nightly.file("summary.md");
  EXPECT_NE(nightly.file("junit.xml").find("failures=\"1\""), std::string::npos) << nightly.file("junit.xml");

  // Interrupted before it finished: the next start resumes the same database.
  std::filesystem::remove(nightly.out + "/run-complete");
  const auto resumed = nightly.run();
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming the interrupted run"), std::string::npos) << resumed.err;
}

TEST(Nightly, BadArgumentsAreOneLineErrors) {
  ScratchDir dir;
  const Nightly nightly{dir};
  for (const auto& [args, mention] : std::vector<std::pair<std::string, std::string>>{
           {dir.file("missing.json"), "no such shapes file"},
           {nightly.shapes + " --budget-minutes soon", "--budget-minutes soon"},
           {nightly.shapes + " --baseline " + dir.file("none.json"), "--baseline"}}) {
    const auto r = run_command("bash " + source_path("scripts/nightly.sh") + " " + args + " --tool " + tool_binary(), dir);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
  }
}
