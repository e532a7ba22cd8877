// cuBLASLt algorithms in the tuning database (schema 2): a database written by schema 1 opens,
// migrates and gains the columns with its rows intact and their algorithms absent; baselines keep
// their algorithm through upsert and merge; the best-kernel rows carry the algorithms of their own
// run's baselines; and a fake-GPU tune stores them and shows them in `show` and every export.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

BaselineRecord lt_baseline(std::int64_t device, std::int64_t run, const Problem& problem, Provider provider,
                           std::optional<LtAlgoConfig> algo) {
  BaselineRecord b = test_baseline(device, run, problem, 48.5, "algo #0 of 3 tried", provider);
  b.lt_algo = std::move(algo);
  return b;
}

using LtDb = WinnerDb;

}  // namespace

TEST(LtAlgoDb, SchemaOneDatabaseMigratesAndGainsTheColumns) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  write_database_at_schema(path, 1);
  EXPECT_EQ(table_columns(path, "baselines").size(), 14u);
  // Read-only opens read a copy migrated in memory, and leave the file as it was.
  EXPECT_EQ(TuningDb::open(path, DbMode::ReadOnly)->schema_version(), kSchemaVersion);
  EXPECT_EQ(table_columns(path, "baselines").size(), 14u);

  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  // Together, in field order (later versions add columns before and after them).
  const auto columns = table_columns(path, "baselines");
  const auto first = std::size_t(std::find(columns.begin(), columns.end(), "lt_algo_id") - columns.begin());
  ASSERT_LE(first + kLtAlgoFieldCount, columns.size());
  for (std::size_t i = 0; i < kLtAlgoFieldCount; ++i)
    EXPECT_EQ(columns[first + i], "lt_" + std::string(kLtAlgoFieldNames[i]));

  const Problem problem = test_problem(4096, 4096, 4096);
  const auto old = db->baselines(1, problem);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_DOUBLE_EQ(old[0].time_us, 204.0);
  EXPECT_EQ(old[0].detail, "algo #3 of 12 tried");
  EXPECT_EQ(old[0].lt_algo, std::nullopt);
  const auto rows = db->winner_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].winner.cublaslt_autotune_us, 204.0);
  EXPECT_FALSE(rows[0].has_lt_algo());

  // The migrated file takes new algorithms like a new one.
  db->upsert_baseline(lt_baseline(1, 1, problem, Provider::CublasltAutotune, test_lt_algo()));
  EXPECT_EQ(db->baselines(1, problem).at(0).lt_algo, test_lt_algo());
  EXPECT_EQ(db->winner_rows().at(0).cublaslt_autotune_algo, test_lt_algo());
}

TEST(LtAlgoDb, BaselineKeepsItsAlgorithmAndAnUpsertReplacesIt) {
  LtDb t;
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasTn, std::nullopt));
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasltAutotune, test_lt_algo()));
  auto baselines = t.db->baselines(t.device, t.problem);
  ASSERT_EQ(baselines.size(), 2u);
  EXPECT_EQ(baselines[0].provider, Provider::CublasTn);
  EXPECT_EQ(baselines[0].lt_algo, std::nullopt);
  EXPECT_EQ(baselines[1].lt_algo, test_lt_algo());

  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasltAutotune, test_lt_algo(4, "2x1x1")));
  EXPECT_EQ(t.db->baselines(t.device, t.problem).at(1).lt_algo, test_lt_algo(4, "2x1x1"));
  // A later measurement whose query failed leaves no stale algorithm behind.
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasltAutotune, std::nullopt));
  EXPECT_EQ(t.db->baselines(t.device, t.problem).at(1).lt_algo, std::nullopt);
}

TEST(LtAlgoDb, WinnerRowsCarryTheirOwnRunsAlgorithms) {
  LtDb t;
  t.add_winner();
  EXPECT_FALSE(t.db->winner_rows().at(0).has_lt_algo());  // no baselines at all
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasltHeuristic, test_lt_algo(1, "1x4x1")));
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasltAutotune, test_lt_algo()));
  t.db->upsert_baseline(lt_baseline(t.device, t.run, t.problem, Provider::CublasNn, std::nullopt));
  const auto rows = t.db->winner_rows();
  ASSERT_EQ(rows.size(), 1u);  // the joins add no rows
  EXPECT_EQ(rows[0].cublaslt_heuristic_algo, test_lt_algo(1, "1x4x1"));
  EXPECT_EQ(rows[0].cublaslt_autotune_algo, test_lt_algo());
  EXPECT_EQ(rows[0].lt_algo(Provider::CublasNn), std::nullopt);

  // Baselines measured again by a later run describe that run's times, not this winner's.
  const std::int64_t later = t.db->begin_run("tune --retune", "s.json");
  t.db->upsert_baseline(lt_baseline(t.device, later, t.problem, Provider::CublasltAutotune, test_lt_algo(2)));
  const auto after = t.db->winner_rows().at(0);
  EXPECT_EQ(after.cublaslt_heuristic_algo, test_lt_algo(1, "1x4x1"));
  EXPECT_EQ(after.cublaslt_autotune_algo, std::nullopt);
}

TEST(LtAlgoDb, MergeCopiesTheAlgorithms) {
  LtDb source;
  source.add_winner();
  source.db->upsert_baseline(
      lt_baseline(source.device, source.run, source.problem, Provider::CublasltAutotune, test_lt_algo(3)));
  source.db.reset();
  TempDir dir;
  const auto merged = TuningDb::open(dir.file("merged.sqlite"), DbMode::ReadWrite);
  merged->merge_from(source.path);
  const auto rows = merged->winner_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cublaslt_autotune_algo, test_lt_algo(3));
  const std::int64_t device = merged->devices().at(0).first;
  EXPECT_EQ(merged->baselines(device, source.problem).at(0).lt_algo, test_lt_algo(3));
}

// The fake worker reports the H200's algorithms for 64x64x64; they reach `show` and every export.
TEST(LtAlgoDb, TuneStoresAlgorithmsThatShowAndExportsPrint) {
  cl2_test::ScratchDir dir;
  const std::string db = dir.file("t.sqlite");
  const auto tuned = cl2_test::run_tool("tune --fake-gpu --max-candidates 2 --shapes " +
                                            dir.write("shapes.json", "[[64, 64, 64]]") + " --db " + db +
                                            cl2_test::test_family_args("naive_many"),
                                        dir);
  ASSERT_EQ(tuned.status, 0) << tuned.err;

  const auto shown = cl2_test::run_tool("show --db " + db + " 64 64 64", dir);
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("algo_id  tile   stages   splitk  reduction  swizzle  custom  cluster"), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("66       64x32  64xAUTO  1       none       0        3       1x2x1"), std::string::npos)
      << shown.out;
  const auto overview = cl2_test::run_tool("show --db " + db, dir);
  EXPECT_NE(overview.out.find("algo 66 64x32 stages 64xAUTO split-K 1 (none) swizzle 0 custom 3 cluster 1x2x1"),
            std::string::npos)
      << overview.out;

  const auto json = cl2_test::run_tool("export --format json --db " + db, dir);
  ASSERT_EQ(json.status, 0) << json.err;
  const auto kernel = nlohmann::json::parse(json.out).at("devices")[0].at("kernels")[0];
  EXPECT_EQ(kernel.at("cublaslt_algos").at("cublaslt_heuristic").at("cluster"), "1x4x1");
  EXPECT_EQ(kernel.at("cublaslt_algos").at("cublaslt_autotune").at("tile"), "64x32");
  const auto csv = cl2_test::run_tool("export --format csv --db " + db, dir);
  EXPECT_NE(csv.out.find(",cublaslt_autotune_cluster,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",66,64x8,64xAUTO,1,none,0,3,1x4x1,66,64x32,64xAUTO,1,none,0,3,1x2x1,"), std::string::npos)
      << csv.out;
  const auto md = cl2_test::run_tool("export --format md --db " + db, dir);
  EXPECT_NE(md.out.find("| cuBLASLt-autotune  | 66      | 64x32 | 64xAUTO |"), std::string::npos) << md.out;
}
