// scripts/strategy_replay.py on a database the fake GPU tuned: how many of the model's first N
// candidates a search's winner needs, another plan scored by its times (--plan), and its one-line
// errors for inputs it cannot use.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

CommandResult replay(const ScratchDir& dir, const std::string& args) {
  return run_command("python3 " + source_path("scripts/strategy_replay.py") + " " + args, dir);
}

// naive_many's variants of SHAPES tuned on the fake GPU into DB, CANDIDATES a shape (0: all).
CommandResult tune_naive_many(const ScratchDir& dir, const std::string& shapes, const std::string& db,
                              const std::string& candidates) {
  return run_tool("tune --fake-gpu --shapes " + shapes + " --db " + db + test_family_args("naive_many") +
                      " --max-candidates " + candidates,
                  dir);
}

}  // namespace

TEST(StrategyReplay, AllOfAShapesCandidatesHoldItsWinnerAndTheWinnerHasAPlace) {
  ScratchDir dir;
  const std::string db = dir.file("t.sqlite");
  const auto tuned = tune_naive_many(dir, dir.write("shapes.json", "[[64, 64, 64]]"), db, "0");
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const auto r = replay(dir, db + " 6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1 shapes, up to 6 verified candidates each"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 6 | 1 of 1 | 1.000 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("The winner's place in the model's order (counting from 1):\n64x64x64 "), std::string::npos)
      << r.out;
}

TEST(StrategyReplay, APlanIsScoredByTheReferencesTimesOfItsVariants) {
  ScratchDir dir;
  const std::string shapes = dir.write("shapes.json", "[[64, 64, 64]]");
  const std::string reference = dir.file("reference.sqlite"), plan = dir.file("plan.sqlite");
  ASSERT_EQ(tune_naive_many(dir, shapes, reference, "0").status, 0);
  ASSERT_EQ(tune_naive_many(dir, shapes, plan, "2").status, 0);
  // The reference's own plan holds its winner; a plan of two of its variants is scored by their times.
  const auto own = replay(dir, reference + " --plan " + reference);
  ASSERT_EQ(own.status, 0) << own.err;
  EXPECT_NE(own.out.find(": 1 of 1 shapes plan a variant within 2% of the winner (0 planned variants the reference did "
                         "not time); misses: none"),
            std::string::npos)
      << own.out;
  const auto two = replay(dir, reference + " --plan " + plan);
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_NE(two.out.find("(0 planned variants the reference did not time)"), std::string::npos) << two.out;
}

// A reference tuned before a parameter was added to the family: plan variants with it at 0 (the
// value that kept the variants as they were) match the reference's; at any other value, nothing.
TEST(StrategyReplay, AParameterTheReferenceLacksMatchesOnlyAtZero) {
  ScratchDir dir;
  const std::string shapes = dir.write("shapes.json", "[[64, 64, 64]]");
  const std::string plan = dir.file("plan.sqlite");
  ASSERT_EQ(tune_naive_many(dir, shapes, plan, "2").status, 0);
  for (const std::string parameter : {"FAULT", "TILE"}) {  // 0 and 16 in every naive_many variant
    SCOPED_TRACE(parameter);
    const std::string reference = dir.file(parameter + ".sqlite");
    ASSERT_EQ(tune_naive_many(dir, shapes, reference, "0").status, 0);
    // The reference as it would be had the parameter not existed when it was tuned.
    const std::string strip = dir.write("strip.py",
                                        "import sqlite3, sys\n"
                                        "db = sqlite3.connect(sys.argv[1])\n"
                                        "db.execute(\"update kernels set config_json = json_remove(config_json, ?)\", "
                                        "('$.params.' + sys.argv[2],))\n"
                                        "db.commit()\n");
    const auto older = run_command("python3 " + strip + " " + reference + " " + parameter, dir);
    ASSERT_EQ(older.status, 0) << older.err;
    const auto r = replay(dir, reference + " --plan " + plan);
    ASSERT_EQ(r.status, 0) << r.err;
    if (parameter == "FAULT") {
      EXPECT_NE(r.out.find(": FAULT (not in the reference's variants) matched where 0"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("(0 planned variants the reference did not time)"), std::string::npos) << r.out;
    } else {
      EXPECT_EQ(r.out.find("matched where 0"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(": 0 of 1 shapes plan a variant within 2% of the winner (2 planned variants the reference "
                           "did not time)"),
                std::string::npos)
          << r.out;
    }
  }
}

TEST(StrategyReplay, InputsItCannotUseAreOneLineErrors) {
  ScratchDir dir;
  dir.write("not-a-db.sqlite", "text");
  for (const std::string& args : {dir.file("missing.sqlite"), dir.file("not-a-db.sqlite"), dir.file("x.sqlite") + " 0",
                                  dir.file("x.sqlite") + " many", dir.file("x.sqlite") + " --plan"}) {
    const auto r = replay(dir, args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("strategy_replay: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
