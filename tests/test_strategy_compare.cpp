// scripts/strategy_compare.py (issue 11's strategy check, no GPU): a shape whose two winners bench
// timed head to head (the runtime running the reference's own kernel) is judged by that timing, the
// others by the ratio of the runs' speedups over cuBLASLt-autotune; and strategy-check.sh's input check.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

// A tuning database's winners table, as far as the script reads it: (m, n, k, ours us, cuBLASLt us).
std::string make_db(const ScratchDir& dir, const std::string& name, const std::string& rows) {
  const std::string path = dir.file(name);
  const std::string script = dir.write(name + ".py", "import sqlite3, sys\n"
                                                     "db = sqlite3.connect(sys.argv[1])\n"
                                                     "db.execute('CREATE TABLE winners (m, n, k, layout, accum, l2, "
                                                     "time_us, cublaslt_autotune_us, candidates_timed)')\n"
                                                     "for m, n, k, ours, lt in [" + rows + "]:\n"
                                                     "    db.execute('INSERT INTO winners VALUES (?, ?, ?, \"tn\", \"f32\", "
                                                     "\"warm\", ?, ?, 24)', (m, n, k, ours, lt))\n"
                                                     "db.commit()\n");
  const auto r = run_command("python3 " + script + " " + path, dir);
  EXPECT_EQ(r.status, 0) << r.err;
  return path;
}

CommandResult compare(const ScratchDir& dir, const std::string& args) {
  return run_command("python3 " + source_path("scripts/strategy_compare.py") + " " + args, dir);
}

}  // namespace

TEST(StrategyCompare, HeadToHeadTimingJudgesWhereTheRuntimeRanTheReferencesKernel) {
  ScratchDir dir;
  // 1024^3: by the ratios 0.95 (the library ran faster in the strategy's run), head to head 0.99.
  // 64^3: by the ratios 0.97; its runtime call went to the library, so the ratios judge it.
  const std::string ref = make_db(dir, "ref.sqlite", "(1024, 1024, 1024, 100.0, 100.0), (64, 64, 64, 2.0, 2.0)");
  const std::string got = make_db(dir, "got.sqlite", "(1024, 1024, 1024, 100.0, 95.0), (64, 64, 64, 2.0, 1.94)");
  const std::string csv = dir.write("bench.csv",
                                    "M,N,K,layout,accum,size_class,provider,mode,gpu_us,route\n"
                                    "1024,1024,1024,tn,f32,mid,ours,offline,101.0,\n"
                                    "1024,1024,1024,tn,f32,mid,runtime,offline,100.0,ours_exact\n"
                                    "64,64,64,tn,f32,small,ours,offline,2.0,\n"
                                    "64,64,64,tn,f32,small,runtime,offline,1.9,cublaslt_recorded\n");
  const auto by_ratios = compare(dir, ref + " " + got);
  ASSERT_EQ(by_ratios.status, 0) << by_ratios.err;
  EXPECT_NE(by_ratios.out.find("0 of 2 shapes within 2%"), std::string::npos) << by_ratios.out;
  const auto r = compare(dir, ref + " " + got + " " + csv);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("| 1024x1024x1024 tn | 1.000 | 0.950 | 0.950 | 0.990 | head to head |"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 64x64x64 tn | 1.000 | 0.970 | 0.970 | - | ratios |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 2 shapes within 2% of the reference (1 judged head to head"), std::string::npos) << r.out;
}

TEST(StrategyCompare, UnreadableInputsAreOneLineErrors) {
  ScratchDir dir;
  const std::string db = make_db(dir, "db.sqlite", "(64, 64, 64, 2.0, 2.0)");
  for (const std::string& args : {dir.write("text.sqlite", "not a database") + " " + db,
                                  db + " " + db + " " + dir.file("missing.csv"),
                                  db + " " + db + " " + dir.write("other.csv", "a,b\n1,2\n")}) {
    const auto r = compare(dir, args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.err.rfind("strategy_compare: ", 0), 0u) << r.err;
  }
}

// The script that runs the check on the GPU machine refuses a reference to reuse that is not
// there, before it writes anything.
TEST(StrategyCompare, StrategyCheckRefusesAMissingReferenceDatabase) {
  ScratchDir dir;
  const auto r = run_command("OUT=" + dir.file("out") + " REF_DB=" + dir.file("missing.sqlite") + " bash " +
                                 source_path("scripts/strategy-check.sh"),
                             dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("REF_DB=" + dir.file("missing.sqlite") + ": no such file", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}
