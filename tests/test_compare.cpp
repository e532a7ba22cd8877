// `compare`: what a nightly job runs to catch regressions. Two best-kernel tables from the fake
// worker, one of them edited the way a slower kernel, a faster library or a lost shape would
// change it; the verdicts, the JUnit failures and the exit status follow.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_tool.hpp"

using namespace cl2_test;
using nlohmann::json;

namespace {

// A tuned export of three shapes, and its path.
std::string tuned_export(const ScratchDir& dir) {
  const std::string db = dir.file("t.sqlite");
  const auto tuned = run_tool("tune --fake-gpu --max-candidates 2 --db " + db + test_family_args("naive_many") +
                                  " --shapes " + dir.write("s.json", "[[256, 256, 256], [1024, 1024, 1024], [64, 4096, 4096]]"),
                              dir);
  EXPECT_EQ(tuned.status, 0) << tuned.err;
  const std::string path = dir.file("before.json");
  EXPECT_EQ(run_tool("export --db " + db + " --format json -o " + path, dir).status, 0);
  return path;
}

// The export with `edit` applied to the entry of 1024x1024x1024.
std::string edited(const ScratchDir& dir, const std::string& before, const std::function<void(json&)>& edit) {
  json doc = json::parse(read_all(before));
  for (auto& kernel : doc["devices"][0]["kernels"])
    if (kernel["m"] == 1024) edit(kernel);
  return dir.write("after.json", doc.dump(1));
}

struct Outcome {
  CommandResult result;
  std::string junit;
};

Outcome compare(const ScratchDir& dir, const std::string& before, const std::string& after) {
  const std::string junit = dir.file("junit.xml");
  Outcome o{run_tool("compare " + before + " " + after + " --junit " + junit, dir), ""};
  o.junit = read_all(junit);
  return o;
}

int failures_in(const std::string& junit) {
  int count = 0;
  for (std::size_t at = junit.find("<failure"); at != std::string::npos; at = junit.find("<failure", at + 1)) ++count;
  return count;
}

}  // namespace

TEST(Compare, SameTableHasNoRegression) {
  ScratchDir dir;
  const std::string before = tuned_export(dir);
  const auto o = compare(dir, before, dir.file("t.sqlite"));  // a database and its own export
  EXPECT_EQ(o.result.status, 0) << o.result.err;
  EXPECT_NE(o.result.out.find("| unchanged       |      3 |"), std::string::npos) << o.result.out;
  EXPECT_EQ(failures_in(o.junit), 0);
  EXPECT_NE(o.junit.find("tests=\"3\" failures=\"0\""), std::string::npos) << o.junit;
}

TEST(Compare, TenPercentSlowerWinnerIsARegression) {
  ScratchDir dir;
  const std::string before = tuned_export(dir);
  const auto o = compare(dir, before, edited(dir, before, [](json& k) { k["time_us"] = k["time_us"].get<double>() * 1.1; }));
  EXPECT_EQ(o.result.status, 1) << o.result.err;
  EXPECT_NE(o.result.out.find("| 1024x1024x1024 tn f32 | regressed"), std::string::npos) << o.result.out;
  EXPECT_EQ(failures_in(o.junit), 1) << o.junit;
  EXPECT_NE(o.junit.find("name=\"1024x1024x1024 tn f32\">\n      <failure message=\"regressed"), std::string::npos)
      << o.junit;
}

TEST(Compare, ChangeWithinTheRecordedNoiseIsIgnored) {
  ScratchDir dir;
  json doc = json::parse(read_all(tuned_export(dir)));
  for (auto& kernel : doc["devices"][0]["kernels"]) kernel["spread_pct"] = 4.0;  // noisy measurements
  const std::string before = dir.write("noisy.json", doc.dump());
  // 2 x hypot(4, 4) = 11.3% of noise: 8% slower is within it, 15% is not.
  const auto within = compare(dir, before, edited(dir, before, [](json& k) { k["time_us"] = k["time_us"].get<double>() * 1.08; }));
  EXPECT_EQ(within.result.status, 0) << within.result.out;
  const auto beyond = compare(dir, before, edited(dir, before, [](json& k) { k["time_us"] = k["time_us"].get<double>() * 1.15; }));
  EXPECT_EQ(beyond.result.status, 1) << beyond.result.out;
}

TEST(Compare, FasterLibraryAndLostShapesAreRegressions) {
  ScratchDir dir;
  const std::string before = tuned_export(dir);
  const auto faster_library = compare(dir, before, edited(dir, before, [](json& k) {
    k["baselines_us"]["cublaslt_autotune"] = k["baselines_us"]["cublaslt_autotune"].get<double>() * 0.8;
  }));
  EXPECT_EQ(faster_library.result.status, 1);
  EXPECT_NE(faster_library.result.out.find("library ahead"), std::string::npos) << faster_library.result.out;
  json doc = json::parse(read_all(before));
  auto& kernels = doc["devices"][0]["kernels"];
  kernels.erase(kernels.begin());
  const auto lost = compare(dir, before, dir.write("lost.json", doc.dump()));
  EXPECT_EQ(lost.result.status, 1);
  EXPECT_NE(lost.result.out.find("lost its winner"), std::string::npos) << lost.result.out;
  EXPECT_EQ(failures_in(lost.junit), 1);
}

TEST(Compare, VersionChangesAreReported) {
  ScratchDir dir;
  const std::string before = tuned_export(dir);
  json doc = json::parse(read_all(before));
  doc["devices"][0]["device"]["cublas_version"] = "13.2.0";
  const auto o = compare(dir, before, dir.write("updated.json", doc.dump()));
  EXPECT_EQ(o.result.status, 0);
  EXPECT_NE(o.result.out.find("cuBLAS fake -> 13.2.0"), std::string::npos) << o.result.out;
}

TEST(Compare, InputThatIsNoTableIsAOneLineError) {
  ScratchDir dir;
  const std::string before = tuned_export(dir);
  for (const auto& [file, text, mention] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"broken.json", "{\"devices\": [", "malformed JSON"},
           {"other.json", "{\"format\": \"something else\"}", "not a best-kernel table"},
           {"future.json", "{\"format\": \"cuda-l2-tune/best-kernels\", \"version\": 9, \"devices\": []}", "version 9"}}) {
    const auto r = run_tool("compare " + before + " " + dir.write(file, text), dir);
    EXPECT_EQ(r.status, 2) << file;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
  }
  const auto missing = run_tool("compare " + before + " " + dir.file("nowhere.json"), dir);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nowhere.json"), std::string::npos) << missing.err;
}
