// scripts/cl2tune_percall.py --judge: cl2tune's graph figures against the range of bench's GPU
// times over several runs, widened by 2 us (no GPU), and its one-line errors for inputs it cannot use;
// the same rule for its same-process rounds.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

CommandResult judge(const ScratchDir& dir, const std::string& args) {
  return run_command("python3 " + source_path("scripts/cl2tune_percall.py") + " --judge " + args, dir);
}

std::string bench_csv(double small, double large, double library) {
  return "M,N,K,layout,accum,mode,provider,gpu_us,wall_us\n"
         "64,64,64,tn,f32,offline,ours," + std::to_string(small) + ",11.0\n"
         "4096,4096,4096,tn,f32,offline,ours," + std::to_string(large) + ",1700.0\n"
         "128,4096,4096,tn,f32,offline,runtime," + std::to_string(library) + ",20.0\n"
         "128,4096,4096,tn,f32,server,runtime,99.0,99.0\n";
}

}  // namespace

TEST(PercallJudge, FiguresWithinTwoMicrosecondsOfBenchsRangePass) {
  ScratchDir dir;
  const std::string figures = dir.write("figures.json",
                                        R"([{"shape": [64, 64, 64], "provider": "ours", "cl2tune_graph_us": 5.5},
                                            {"shape": [4096, 4096, 4096], "provider": "ours", "cl2tune_graph_us": 1620.0},
                                            {"shape": [128, 4096, 4096], "provider": "runtime", "cl2tune_graph_us": 20.0}])");
  const std::string before = dir.write("before.csv", bench_csv(5.0, 1600.0, 15.0));
  const std::string after = dir.write("after.csv", bench_csv(5.2, 1650.0, 16.0));
  const auto r = judge(dir, figures + " --bench-csv " + before + " --bench-csv " + after);
  ASSERT_EQ(r.status, 0) << r.err;
  // Inside the range of the two runs (a GPU-bound shape whose runs differ by 50 us): no distance.
  EXPECT_NE(r.out.find("| 4096x4096x4096 | ours | 1620.00 | 1600.00 / 1650.00 | 0.00 | yes |"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 64x64x64 | ours | 5.50 | 5.00 / 5.20 | 0.30 | yes |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 128x4096x4096 | runtime | 20.00 | 15.00 / 16.00 | 4.00 | no |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("for the same kernel over 2 runs: 2 of 3"), std::string::npos) << r.out;
}

// The same-process judgement: Python's median over its rounds against the range of the C++ rounds
// widened by 2 us.
TEST(PercallJudge, SameProcessRoundsAreJudgedAgainstTheCppRange) {
  ScratchDir dir;
  const auto r = run_command("cd " + source_path("scripts") + " && python3 -c 'import cl2tune_percall as p\n"
                             "print(p.within_rounds([1700.0, 1620.0, 1630.0], [1600.0, 1650.0, 1610.0]))\n"
                             "print(p.within_rounds([5.5, 5.4, 9.0], [3.0, 3.1, 3.2]))\n"
                             "print(p.within_rounds([21.0, 21.0, 21.0], [18.0, 18.5, 19.0]))'",
                             dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "(1630.0, 0.0, True)\n(5.5, 2.3, False)\n(21.0, 2.0, True)\n");
}

TEST(PercallJudge, JudgingWithoutBenchRunsIsAOneLineError) {
  ScratchDir dir;
  const auto r = judge(dir, dir.write("figures.json", "[]"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("cl2tune_percall: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(PercallJudge, FiguresItCannotReadAreOneLineErrors) {
  ScratchDir dir;
  const std::string bench = " --bench-csv " + dir.write("bench.csv", bench_csv(5.0, 1600.0, 15.0));
  for (const std::string& figures : {dir.file("missing.json"), dir.write("text.json", "not json"),
                                     dir.write("no-shape.json", R"([{"provider": "ours", "cl2tune_graph_us": 5.5}])"),
                                     dir.write("bad-shape.json", R"([{"shape": 64, "provider": "ours", "cl2tune_graph_us": 5}])")}) {
    const auto r = judge(dir, figures + bench);
    EXPECT_EQ(r.status, 2) << figures;
    EXPECT_EQ(r.err.rfind("cl2tune_percall: " + figures + ": cannot read the figures", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
