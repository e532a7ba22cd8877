// Every input a user can get wrong: one line on stderr that names the input, exit status 2, and
// the database exactly as it was (absent if it was absent).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "gpu/device_query.hpp"
#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

struct Case {
  std::string shapes;       // file content ("" = do not create the file)
  std::string extra_args;
  std::string must_mention;
};

void expect_user_error(const CommandResult& r, const std::string& must_mention) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("cuda-l2-tune: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(must_mention), std::string::npos) << "expected '" << must_mention << "' in: " << r.err;
}

CommandResult tune(const ScratchDir& dir, const Case& c, const std::string& db) {
  const std::string shapes = c.shapes.empty() ? dir.file("missing.json") : dir.write("shapes.json", c.shapes);
  return run_tool("tune --fake-gpu --shapes " + shapes + " --db " + db + " " + c.extra_args, dir);
}

}  // namespace

TEST(CliErrors, BadShapesLeaveNoDatabaseBehind) {
  const std::vector<Case> cases = {
      {"", "", "missing.json"},
      {"[[64, 64, 64]", "", "malformed JSON"},
      {"[[0, 64, 64]]", "", "m = 0"},
      {"[{\"m\": 64, \"n\": -3, \"k\": 64}]", "", "n = -3"},
      {"[[64, 64, 1.5]]", "", "not an integer"},
      {"[[64, \"64\", 64]]", "", "not an integer"},
      {"[[64, 64]]", "", "exactly 3"},
      {"[]", "", "empty"},
      {"{\"m\": 1}", "", "list of shapes"},
      {"[{\"m\": 64, \"n\": 64, \"k\": 64, \"layout\": \"xt\"}]", "", "unknown layout 'xt'"},
      {"[{\"m\": 64, \"n\": 64, \"k\": 64, \"l2\": \"cold\"}]", "", "shape #1 l2: unknown L2 policy 'cold'"},
      {"[[200000, 200000, 200000]]", "", "GiB of GPU memory"},
      {"[[64, 64, 64]]", "--family nosuch", "--family nosuch"},
      {"[[64, 64, 64]]", "--layout diagonal", "--layout"},
      {"[[64, 64, 64]]", "--accum f8", "--accum"},
      {"[[64, 64, 64]]", "--l2 bogus", "--l2: unknown L2 policy 'bogus'; use warm, rotate or flush"},
      {"[[64, 64, 64]]", "--pin NOSUCH=1", "--pin NOSUCH=1"},
      {"[[64, 64, 64]]", "--pin BM=big", "--pin BM=big"},
      {"[[64, 64, 64]]", "--pin BM", "--pin BM"},
      {"[[64, 64, 64]]", "--pin BN=12", "--pin: no selected family takes these values (family sm80 takes BN in"},
      {"[[64, 64, 64]]", "--finalists 0", "--finalists: Value 0 not in range 1 to 64"},
      {"[[64, 64, 64]]", "--max-candidates many", "--max-candidates"},
      {"[[1024, 4096, 1024]]", "--strategy exhaustive", "variants planned with no cap on candidates"},
      // Shapes after the first batch (an eighth of 16 or more) are planned later, but checked before
      // anything is written; with seeds the first batch is every eighth shape, else the first two.
      {"[[64, 64, 64], [64, 64, 7], [64, 64, 128], [64, 64, 192], [64, 64, 256], [64, 64, 320], [64, 64, 384], "
       "[64, 64, 448], [64, 64, 512], [64, 64, 576], [64, 64, 640], [64, 64, 704], [64, 64, 768], [64, 64, 832], "
       "[64, 64, 896], [64, 64, 960]]",
       "--family sm90 --seeds 1", "shape 64x64x7 tn f32: no kernel variant"},
      {"[[64, 64, 64], [64, 64, 128], [64, 64, 192], [64, 64, 256], [64, 64, 320], [64, 64, 384], [64, 64, 448], "
       "[64, 64, 512], [64, 64, 576], [64, 64, 640], [64, 64, 704], [64, 64, 768], [64, 64, 832], [64, 64, 896], "
       "[64, 64, 7], [64, 64, 960]]",
       "--family sm90", "shape 64x64x7 tn f32: no kernel variant"},
      {"[[64, 64, 64]]", "--strategy fastest", "--strategy fastest: expected model, race, seeded, random or exhaustive"},
      {"[[64, 64, 64]]", "--no-such-option", "--no-such-option"},
  };
  for (const auto& c : cases) {
    ScratchDir dir;
    SCOPED_TRACE(c.shapes + " " + c.extra_args);
    expect_user_error(tune(dir, c, dir.file("t.sqlite")), c.must_mention);
    EXPECT_FALSE(std::filesystem::exists(dir.file("t.sqlite")));
  }
}

TEST(CliErrors, BadDatabasesAreNamedAndLeftUntouched) {
  ScratchDir dir;
  const Case ok{"[[64, 64, 64]]", "", ""};
  // Not a database at all.
  const std::string text = dir.write("notes.sqlite", "these are my notes, not a database\n");
  expect_user_error(tune(dir, ok, text), "notes.sqlite");
  EXPECT_EQ(read_all(text), "these are my notes, not a database\n");
  // A SQLite database of another program.
  const std::string other = dir.file("other.sqlite");
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &handle), SQLITE_OK);
  sqlite3_exec(handle, "CREATE TABLE recipes(name TEXT);", nullptr, nullptr, nullptr);
  sqlite3_close(handle);
  const std::string other_before = read_all(other);
  expect_user_error(tune(dir, ok, other), "other.sqlite");
  EXPECT_EQ(read_all(other), other_before);
  // Ours, but from a newer schema.
  const std::string newer = dir.file("newer.sqlite");
  ASSERT_EQ(sqlite3_open(newer.c_str(), &handle), SQLITE_OK);
  sqlite3_exec(handle, "PRAGMA application_id = 1129075284; PRAGMA user_version = 99; CREATE TABLE x(y);",
               nullptr, nullptr, nullptr);
  sqlite3_close(handle);
  const std::string newer_before = read_all(newer);
  expect_user_error(tune(dir, ok, newer), "newer");
  EXPECT_EQ(read_all(newer), newer_before);
  // A folder that cannot hold it (its parent is a regular file, which stops root too).
  const std::string blocker = dir.write("plain-file", "x");
  expect_user_error(tune(dir, ok, blocker + "/t.sqlite"), "plain-file/t.sqlite");
}

TEST(CliErrors, TuneWithoutAGpuSaysSoInOneLine) {
  if (cl2::gpu_unavailable_reason(0).empty()) GTEST_SKIP() << "a GPU is present here";
  ScratchDir dir;
  const auto r = run_tool("tune --shapes " + source_path("configs/shapes/quickstart.json") + " --db " +
                              dir.file("t.sqlite"),
                          dir);
  expect_user_error(r, "GPU");
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.sqlite")));
}

TEST(CliErrors, ExportAndShowNameAMissingDatabase) {
  ScratchDir dir;
  expect_user_error(run_tool("export --format json --db " + dir.file("none.sqlite"), dir), "none.sqlite");
  expect_user_error(run_tool("show --db " + dir.file("none.sqlite"), dir), "none.sqlite");
  expect_user_error(run_tool("export --format xml --db " + dir.file("none.sqlite"), dir), "xml");
  expect_user_error(run_tool("show 64 64 64 --l2 cold --db " + dir.file("none.sqlite"), dir), "--l2");
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.sqlite")));
}

TEST(CliErrors, HelpExplainsEveryTuneOption) {
  ScratchDir dir;
  const auto r = run_tool("tune --help", dir);
  EXPECT_EQ(r.status, 0);
  for (const char* option : {"--shapes", "--db", "--layout", "--accum", "--l2", "--family", "--max-candidates",
                             "--budget-seconds", "--finalists", "--compile-only", "--device"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
}
