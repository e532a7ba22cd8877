// bench's provider "runtime" without a GPU: the options that choose it and what it dispatches from
// (--providers, --runtime-db, and its errors), and how the reports keep it apart from our kernels
// alone (its own rows and route in bench.csv, its own speedup columns in speedups.csv, its own
// section in summary.md, its routes in run.json).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "bench/bench_report.hpp"
#include "bench/bench_steps.hpp"
#include "core/errors.hpp"
#include "db_test_support.hpp"
#include "runtime/dispatch.hpp"
#include "support/bench_report_fixture.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

void add_runtime(ShapeBench& shape, const std::string& mode, int interval_ms, double gpu_us, double wall_us,
                 const std::string& route, const std::string& detail) {
  shape.timings.push_back(timing("runtime", mode, interval_ms, gpu_us, wall_us));
  const std::string chosen_by = route == "ours_exact"     ? "exact"
                                : route == "ours_nearest" ? "nearest-timed"
                                                          : "library";
  shape.runtime_route = RuntimeRoute{route, detail, chosen_by};
}

// fixture_run() with the runtime on every shape. Offline speedups (gpu; wall):
//   runtime vs ours               0.8 1 1.25 - (geomean 1, 3 shapes);  0.5 1 2 -
//   runtime vs cuBLASLt-autotune  1.6 8 5 2 (geomean 128^1/4);         0.25 1 4 2
// Server 10 ms: the runtime as fast as ours; 45 us on the untuned shape (autotune 90 us).
BenchRun runtime_run() {
  BenchRun run = fixture_run();
  run.runtime_db = "db/grid-125.sqlite";
  ShapeBench &small = run.shapes.at(0), &mid = run.shapes.at(1), &large = run.shapes.at(2), &untuned = run.shapes.at(3);
  add_runtime(small, "offline", 0, 12.5, 40, "ours_exact", "ours exact: sm90 BM=128");
  add_runtime(mid, "offline", 0, 100, 110, "ours_nearest", "ours nearest (tuned at 1000x1000x1000): sm90 BM=128");
  add_runtime(large, "offline", 0, 1600, 1005, "cublaslt_recorded", "cublaslt recorded: algo 66, faster than ours");
  add_runtime(untuned, "offline", 0, 20, 25, "cublaslt_heuristic",
              "cublaslt heuristic: no tuned configuration is valid for this shape");
  add_runtime(small, "server", 10, 40, 80, "ours_exact", "ours exact: sm90 BM=128");
  add_runtime(mid, "server", 10, 140, 180, "ours_nearest", "ours nearest (tuned at 1000x1000x1000): sm90 BM=128");
  add_runtime(large, "server", 10, 2040, 2080, "cublaslt_recorded", "cublaslt recorded: algo 66, faster than ours");
  add_runtime(untuned, "server", 10, 45, 60, "cublaslt_heuristic",
              "cublaslt heuristic: no tuned configuration is valid for this shape");
  return run;
}

using BenchRuntimeReport = WrittenBenchRun<runtime_run>;

std::string four_cell(double a, double b, double c, double d) {
  return fmt::format("{:.3f} ({:.3f})", std::pow(a * b * c * d, 0.25), (a + b + c + d) / 4);
}

}  // namespace

TEST(BenchRuntime, RouteNamesAreThoseOfTheReports) {
  EXPECT_EQ(to_string(Route::OursExact), "ours_exact");
  EXPECT_EQ(to_string(Route::OursNearest), "ours_nearest");
  EXPECT_EQ(to_string(Route::LibraryRecorded), "cublaslt_recorded");
  EXPECT_EQ(to_string(Route::LibraryHeuristic), "cublaslt_heuristic");
}

TEST(BenchRuntime, PlanDispatchesFromTheRuntimeDbOrTheDb) {
  BenchOptions options;
  options.db_path = "tuned.sqlite";
  EXPECT_EQ(make_bench_plan(options).runtime_db, "tuned.sqlite") << "all providers include the runtime";
  options.runtime_db_path = "other.sqlite";
  EXPECT_EQ(make_bench_plan(options).runtime_db, "other.sqlite");
  options.providers = {"ours", "runtime"};
  EXPECT_TRUE(make_bench_plan(options).providers.count(Provider::Runtime));
  options.providers = {"ours", "cublaslt_autotune"};
  try {
    make_bench_plan(options);
    FAIL() << "--runtime-db without the runtime among --providers was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--runtime-db other.sqlite: the runtime is not among --providers; add runtime to them, "
                           "or leave --runtime-db out");
  }
  options.runtime_db_path.clear();
  EXPECT_EQ(make_bench_plan(options).runtime_db, "") << "no runtime, nothing to open";
}

TEST(BenchRuntime, OnlyARuntimeAskedForExcusesADbWithoutTheShapes) {
  // Within the default `all` the runtime is benched too, but a --db without winners for the
  // shapes stays the "tune them first" error; named, or given its own database, it is not.
  BenchOptions options;
  options.db_path = "tuned.sqlite";
  EXPECT_FALSE(make_bench_plan(options).runtime_explicit);
  options.providers = {"ours", "runtime"};
  EXPECT_TRUE(make_bench_plan(options).runtime_explicit);
  options.providers = {"all"};
  options.runtime_db_path = "other.sqlite";
  EXPECT_TRUE(make_bench_plan(options).runtime_explicit);
}

TEST(BenchRuntime, BadRuntimeDbIsOneLineNamingTheOption) {
  cl2_test::ScratchDir dir;
  const std::string shapes = dir.write("shapes.json", "[[64, 64, 64]]");
  TuningDb::open(dir.file("tuned.sqlite"), DbMode::ReadWrite);  // a valid, empty --db
  const std::string junk = dir.write("junk.sqlite", "not a database, just some bytes that go on for a while");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dir.file("missing.sqlite"),
       "--runtime-db " + dir.file("missing.sqlite") + ": no such file or folder; pass a tuning database or a bundle "
                                                      "folder"},
      {junk, "--runtime-db: " + junk + ": is not a SQLite database; pass the path of a cuda-l2-tune tuning database "
                                       "to --runtime-db"},
      {dir.path().string(), "--runtime-db: " + dir.file("table.json") + ": cannot read it; pass a bundle folder"},
  };
  for (const auto& [path, message] : cases) {
    const auto r = cl2_test::run_tool(
        "bench --shapes " + shapes + " --db " + dir.file("tuned.sqlite") + " --runtime-db " + path, dir);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(cl2_test::line_count(r.err), 1) << r.err;
    CL2_EXPECT_CONTAINS(r.err, "cuda-l2-tune: " + message);
  }
}

TEST_F(BenchRuntimeReport, BenchCsvGivesTheRuntimeRowsTheirRoute) {
  const std::string csv = output("bench.csv");
  EXPECT_EQ(lines_of(csv)[0],
            "M,N,K,layout,accum,size_class,provider,mode,interval_ms,gpu_us,gpu_spread_pct,gpu_samples,"
            "wall_us,wall_spread_pct,wall_samples,tflops_gpu,gbps_gpu,route,route_detail,chosen_by");
  const auto mid = bench_row(csv, "1024,1024,1024,", "runtime", "offline");
  EXPECT_EQ(mid.at("gpu_us"), "100.000");
  EXPECT_EQ(mid.at("route"), "ours_nearest");
  EXPECT_EQ(mid.at("route_detail"), "ours nearest (tuned at 1000x1000x1000): sm90 BM=128");
  EXPECT_EQ(mid.at("chosen_by"), "nearest-timed");
  EXPECT_EQ(bench_row(csv, "1024,1024,1024,", "ours", "offline").at("route"), "") << "ours has no route";
  // A detail with a comma is quoted, so the row keeps its columns.
  CL2_EXPECT_CONTAINS(csv, ",cublaslt_recorded,\"cublaslt recorded: algo 66, faster than ours\",library\n");
}

TEST_F(BenchRuntimeReport, SpeedupsCsvAppendsTheRuntimeColumns) {
  const auto lines = lines_of(output("speedups.csv"));
  const std::string appended =
      ",wall_vs_cublaslt_autotune,gpu_runtime_vs_ours,gpu_runtime_vs_cublaslt_autotune,wall_runtime_vs_ours,"
      "wall_runtime_vs_cublaslt_autotune";
  EXPECT_EQ(lines[0].substr(lines[0].size() - appended.size()), appended) << lines[0];
  EXPECT_EQ(lines[1].rfind("256_256_256,tn,f32,offline,0,1.0000,", 0), 0u) << "ours' columns as before: " << lines[1];
  const std::string small = ",0.8000,1.6000,0.5000,0.2500";
  EXPECT_EQ(lines[1].substr(lines[1].size() - small.size()), small) << lines[1];
  // No winner of ours: only the runtime's speedup over cuBLASLt-autotune.
  EXPECT_EQ(lines[7], "2048_2048_1024,nn,f16,offline,0,,,,,,,,,,,,,,2.0000,,2.0000");
}

TEST_F(BenchRuntimeReport, SummaryKeepsTheRuntimeApartFromOurs) {
  const std::string md = output("summary.md");
  for (const char* expected :
       {"## The runtime library (libcl2) against our kernels alone\n", "from `db/grid-125.sqlite`",
        "- runtime (libcl2) vs ours, offline GPU time: geomean 1.000 (mean 1.017, min 0.800) over 3 shapes\n",
        "- runtime (libcl2) vs cuBLASLt-autotune, offline GPU time: geomean 3.364 (mean 4.150, min 1.600) over 4 "
        "shapes\n",
        "- ours vs cuBLASLt-autotune, offline GPU time: geomean 4.000 (mean 4.667, min 2.000) over 3 shapes\n",
        "Routes: cublaslt_heuristic 1, cublaslt_recorded 1, ours_exact 1, ours_nearest 1; chosen: exact 1, library 2, "
        "nearest-timed 1.\n"})
    CL2_EXPECT_CONTAINS(md, expected);
  const auto gpu =
      table_after(md, "### Runtime speedups, GPU time (CUDA events; offline: around graph-captured calls)");
  EXPECT_EQ(row_labelled(gpu, "offline"),
            (std::vector<std::string>{"offline", "4", cell_of(0.8, 1, 1.25) + " [3 shapes]", four_cell(1.6, 8, 5, 2),
                                      cell_of(2, 8, 4) + " [3 shapes]"}));
  EXPECT_EQ(row_labelled(gpu, "server 10 ms"),
            (std::vector<std::string>{"server 10 ms", "4", "1.000 (1.000) [3 shapes]", four_cell(3, 3, 3, 2),
                                      "3.000 (3.000) [3 shapes]"}));
  const auto wall = table_after(
      md, "### Runtime speedups, Per-call time (wall clock around the call and a synchronize, as CUDA-L2 measures)");
  EXPECT_EQ(row_labelled(wall, "offline")[3], four_cell(0.25, 1, 4, 2));
  // The tables of ours alone are those of a run without the runtime.
  const BenchRun without = fixture_run();
  TempDir other;
  write_bench_outputs(without, other.file("out"));
  const std::string plain = read_bytes(other.file("out/summary.md"));
  EXPECT_EQ(plain.find("libcl2"), std::string::npos) << plain;
  const std::string ours_tables_end = "\n## Best and worst shapes";
  EXPECT_EQ(md.substr(0, md.find("\n## The runtime library")), plain.substr(0, plain.find(ours_tables_end)));
}

TEST_F(BenchRuntimeReport, SummaryListsWhereEachShapeWentSlowestFirst) {
  const auto rows = table_after(output("summary.md"), "### Where the runtime sent each shape (offline GPU time; "
                                                      "slowest against ours first)");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"256x256x256 tn f32", "ours_exact", "exact", "ours exact: sm90 BM=128",
                                               "12.500", "10.000", "0.800x", "20.000", "1.600x"}));
  EXPECT_EQ(rows[2][0], "8192x8192x8192 tn f32");
  EXPECT_EQ(rows[3], (std::vector<std::string>{"2048x2048x1024 nn f16", "cublaslt_heuristic", "library",
                                               "cublaslt heuristic: no tuned configuration is valid for this shape",
                                               "20.000", "-", "-", "40.000", "2.000x"}));
}

TEST_F(BenchRuntimeReport, RunJsonKeepsTheRoutesAndTheRuntimeDb) {
  const BenchRun back = read_bench_run(dir_.file("out/run.json"));
  EXPECT_EQ(back.runtime_db, "db/grid-125.sqlite");
  ASSERT_EQ(back.shapes.size(), run_.shapes.size());
  for (std::size_t s = 0; s < back.shapes.size(); ++s)
    EXPECT_EQ(back.shapes[s].runtime_route, run_.shapes[s].runtime_route) << s;
  write_bench_outputs(back, dir_.file("again"));
  for (const char* name : {"bench.csv", "speedups.csv", "summary.md", "run.json"})
    EXPECT_EQ(read_bytes(dir_.file(std::string("again/") + name)), output(name)) << name;
  // A run without the runtime writes neither key.
  write_bench_outputs(fixture_run(), dir_.file("plain"));
  const std::string plain = read_bytes(dir_.file("plain/run.json"));
  for (const char* key : {"\"runtime_db\"", "\"runtime_route\""})
    EXPECT_EQ(plain.find(key), std::string::npos) << key;
}

TEST(BenchRuntime, ARunFromBeforeFirstCallTimingSaysNothingOfHowTheRuntimeChose) {
  BenchRun run = runtime_run();
  for (ShapeBench& shape : run.shapes) shape.runtime_route->chosen_by.clear();
  TempDir dir;
  write_bench_outputs(run, dir.file("out"));
  EXPECT_EQ(read_bytes(dir.file("out/run.json")).find("chosen_by"), std::string::npos);
  const BenchRun back = read_bench_run(dir.file("out/run.json"));
  EXPECT_EQ(back.shapes[1].runtime_route, run.shapes[1].runtime_route);
  const std::string md = read_bytes(dir.file("out/summary.md"));
  CL2_EXPECT_CONTAINS(md, "Routes: cublaslt_heuristic 1, cublaslt_recorded 1, ours_exact 1, ours_nearest 1.\n");
  const auto rows = table_after(md, "### Where the runtime sent each shape (offline GPU time; slowest against ours "
                                    "first)");
  EXPECT_EQ(rows.at(0).at(2), "-");
}
