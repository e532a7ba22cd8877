// cuBLASLt algorithms in the tuning database (schema 2): a database written by schema 1 opens,
// migrates and gains the columns with its rows intact and their algorithms absent; baselines keep
// their algorithm through upsert and merge; the best-kernel rows carry the algorithms of their own
// run's baselines; and a fake-GPU tune stores them and shows them in `show` and every export.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "core/embedded_files.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << sql;
}

// What a schema-1 build wrote: its schema (db/schema.sql, never edited once shipped), its pragmas,
// and one run, device, kernel, trial, cuBLASLt baseline and winner for 4096^3 tn f32.
void write_schema_1_database(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  exec(db, std::string(find_embedded_file("db/schema.sql").value()));
  exec(db, "PRAGMA user_version = 1; PRAGMA application_id = 1129067092;");
  const std::string device = nlohmann::json(test_device()).dump();
  exec(db, "INSERT INTO runs (id, command_line) VALUES (1, 'cuda-l2-tune tune');"
           "INSERT INTO devices (id, fingerprint, name, cc_major, cc_minor, num_sms, sm_clock_mhz, mem_clock_mhz, "
           "l2_bytes, smem_optin_bytes, driver_version, cuda_runtime_version, cublas_version, nvrtc_version, "
           "info_json) VALUES (1, '" + test_device().fingerprint() + "', 'NVIDIA H200', 9, 0, 132, 1980, 3201, "
           "62914560, 232448, '13.0', '13.0', '13.1.0', '13.0', '" + device + "');"
           "INSERT INTO kernels (id, family, config_json, source_hash, arch, compiled, registers, stack_bytes, "
           "spill_bytes, smem_static_bytes) VALUES (1, 'sm90', '{}', 'h', 'sm_90a', 1, 168, 0, 0, 0);"
           "INSERT INTO trials (id, run_id, device_id, kernel_id, m, n, k, layout, accum, status, time_us) "
           "VALUES (1, 1, 1, 1, 4096, 4096, 4096, 'tn', 'f32', 'ok', 210.5);"
           "INSERT INTO baselines (device_id, run_id, m, n, k, layout, accum, provider, time_us, detail) "
           "VALUES (1, 1, 4096, 4096, 4096, 'tn', 'f32', 'cublaslt_autotune', 204.0, 'algo #3 of 12 tried');"
           "INSERT INTO winners (device_id, run_id, m, n, k, layout, accum, kernel_id, trial_id, time_us, "
           "cublaslt_autotune_us) VALUES (1, 1, 4096, 4096, 4096, 'tn', 'f32', 1, 1, 210.5, 204.0);");
  sqlite3_close(db);
}

std::vector<std::string> baseline_columns(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('baselines')", -1, &stmt, nullptr), SQLITE_OK);
  std::vector<std::string> names;
  while (sqlite3_step(stmt) == SQLITE_ROW) names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return names;
}

BaselineRecord lt_baseline(std::int64_t device, std::int64_t run, const Problem& problem, Provider provider,
                           std::optional<LtAlgoConfig> algo) {
  BaselineRecord b = test_baseline(device, run, problem, 48.5, "algo #0 of 3 tried", provider);
  b.lt_algo = std::move(algo);
  return b;
}

// A database with one winner of `problem` in run `run` and the given cuBLASLt baselines.
struct LtDb {
  TempDir dir;
  std::string path = dir.file("lt.sqlite");
  std::unique_ptr<TuningDb> db = TuningDb::open(path, DbMode::ReadWrite);
  std::int64_t run = db->begin_run("tune", "s.json");
  std::int64_t device = db->upsert_device(test_device());
  Problem problem = test_problem(1024, 1024, 12288);

  void add_winner() {
    const std::int64_t kernel = db->upsert_kernel(test_kernel(128));
    WinnerRecord w = test_winner(problem, 57.1, 50.0, 48.0, 44.2);
    w.device_id = device;
    w.run_id = run;
    w.kernel_id = kernel;
    w.trial_id = db->insert_trial(ok_trial(run, device, kernel, problem, 57.1));
    db->put_winner(w);
  }
};

}  // namespace

TEST(LtAlgoDb, SchemaOneDatabaseMigratesAndGainsTheColumns) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  write_schema_1_database(path);
  EXPECT_EQ(baseline_columns(path).size(), 14u);
  // Read-only opens never migrate: they ask for a write-mode command first, and leave the file.
  EXPECT_THROW(TuningDb::open(path, DbMode::ReadOnly), UserError);

  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), 2);
  const auto columns = baseline_columns(path);
  ASSERT_EQ(columns.size(), 14u + kLtAlgoFieldCount);
  for (std::size_t i = 0; i < kLtAlgoFieldCount; ++i)
    EXPECT_EQ(columns[14 + i], "lt_" + std::string(kLtAlgoFieldNames[i]));

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
  EXPECT_NE(csv.out.find(",cublaslt_autotune_cluster\n"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",66,64x8,64xAUTO,1,none,0,3,1x4x1,66,64x32,64xAUTO,1,none,0,3,1x2x1\n"), std::string::npos)
      << csv.out;
  const auto md = cl2_test::run_tool("export --format md --db " + db, dir);
  EXPECT_NE(md.out.find("| cuBLASLt-autotune  | 66      | 64x32 | 64xAUTO |"), std::string::npos) << md.out;
}
