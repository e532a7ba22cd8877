// bench's provider "runtime" on a GPU, through the tool: on a database of one winner (tuned by
// nobody, tests/support/one_winner_db.hpp) the runtime's calls at the tuned shape (its winner), at
// an untuned shape near it (the nearest winner, or a kernel planned there) and in a layout nothing was tuned in (cuBLASLt) are
// verified, captured into graphs and timed, offline and after idle gaps, with the route each took;
// under the rotate policy they take the operand copies in turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_report.hpp"
#include "db_test_support.hpp"
#include "support/one_winner_db.hpp"
#include "support/require_gpu.hpp"
#include "support/run_tool.hpp"
#include "support/runtime_fixtures.hpp"

using namespace cl2;

namespace {

constexpr const char* kShapes =
    R"([[512, 512, 512], [384, 520, 512], {"m": 512, "n": 512, "k": 512, "layout": "nn"}])";

const ProviderTiming* find_timing(const ShapeBench& shape, Provider provider, const std::string& mode) {
  for (const auto& timing : shape.timings)
    if (timing.provider == provider && timing.mode == mode) return &timing;
  return nullptr;
}

class BenchRuntimeGpu : public ::testing::Test {
 protected:
  // `bench ARGS` of kShapes on a database whose one winner is for 512x512x512: its run, or
  // nullopt (and a failure) where bench failed.
  std::optional<BenchRun> bench(const std::string& args) {
    test::write_one_winner_db(db_, cl2_test::tn(512, 512, 512));
    const auto r = cl2_test::run_tool("bench --shapes " + dir_.write("shapes.json", kShapes) + " --db " + db_ +
                                          " --out " + dir_.file("out") + " " + args,
                                      dir_);
    EXPECT_EQ(r.status, 0) << r.err;
    if (r.status != 0) return std::nullopt;
    return read_bench_run(dir_.file("out/run.json"));
  }

  cl2_test::ScratchDir dir_;
  const std::string db_ = dir_.file("one.sqlite");
};

}  // namespace

TEST_F(BenchRuntimeGpu, EveryRouteIsVerifiedTimedAndRecorded) {
  CL2_REQUIRE_GPU();
  const auto run = bench("--providers ours,runtime,cublaslt_autotune --mode both --interval-ms 1 --server-samples 2");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->runtime_db, db_);
  ASSERT_EQ(run->shapes.size(), 3u);
  // The untuned shape's first call times the nearest winner's variants and the kernels planned at
  // the shape: either may win.
  const std::vector<std::vector<std::string>> routes = {
      {"ours_exact"}, {"ours_nearest", "ours_planned"}, {"cublaslt_heuristic"}};
  const std::vector<std::vector<std::string>> chosen_by = {{"exact"}, {"nearest-timed", "planned-timed"}, {"library"}};
  for (std::size_t s = 0; s < 3; ++s) {
    const ShapeBench& shape = run->shapes[s];
    ASSERT_TRUE(shape.runtime_route) << shape.problem.text();
    const auto one_of = [](const std::vector<std::string>& allowed, const std::string& value) {
      return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
    };
    EXPECT_TRUE(one_of(routes[s], shape.runtime_route->route)) << shape.runtime_route->detail;
    EXPECT_TRUE(one_of(chosen_by[s], shape.runtime_route->chosen_by)) << shape.runtime_route->detail;
    for (const char* mode : {"offline", "server"}) {
      const ProviderTiming* timing = find_timing(shape, Provider::Runtime, mode);
      ASSERT_NE(timing, nullptr) << shape.problem.text() << " " << mode;
      EXPECT_GT(timing->gpu_us, 0) << shape.problem.text() << " " << mode;
      EXPECT_GT(timing->wall_us, 0) << shape.problem.text() << " " << mode;
    }
  }
  EXPECT_NE(find_timing(run->shapes[0], Provider::Ours, "offline"), nullptr);
  const std::string summary = test::read_bytes(dir_.file("out/summary.md"));
  CL2_EXPECT_CONTAINS(summary, "- runtime (libcl2) vs ours, offline GPU time: geomean ");
  CL2_EXPECT_CONTAINS(summary, "Routes: cublaslt_heuristic 1, ours_exact 1, ours_");
  CL2_EXPECT_CONTAINS(summary, "; chosen: exact 1, library 1, ");
}

TEST_F(BenchRuntimeGpu, RotatedOperandsAndNoWinnerOfOurs) {
  CL2_REQUIRE_GPU();
  // The database holds no winner under rotate, so ours has nothing to run; the runtime dispatches
  // from the warm one.
  const auto run = bench("--l2 rotate --providers runtime --mode offline");
  ASSERT_TRUE(run);
  for (const ShapeBench& shape : run->shapes) {
    EXPECT_FALSE(shape.has_winner);
    const ProviderTiming* timing = find_timing(shape, Provider::Runtime, "offline");
    ASSERT_NE(timing, nullptr) << shape.problem.text();
    EXPECT_GT(timing->gpu_us, 0) << shape.problem.text();
  }
  EXPECT_EQ(run->shapes[0].runtime_route->route, "ours_exact");
}

// A --runtime-db whose winner was tuned from a template that has changed since cannot be run as
// tuned: bench ends with one line that names the option and the fix, exit status 2.
TEST_F(BenchRuntimeGpu, AWinnerWhoseTemplateChangedIsAnErrorOfTheRuntimeDatabase) {
  CL2_REQUIRE_GPU();
  test::write_one_winner_db(db_, cl2_test::tn(512, 512, 512));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  test::exec_sql_or_fail(db, "UPDATE kernels SET source_hash = 'tuned-from-an-older-template'");
  sqlite3_close(db);
  const auto r = cl2_test::run_tool("bench --shapes " + dir_.write("one.json", "[[512, 512, 512]]") + " --db " + db_ +
                                        " --runtime-db " + db_ + " --providers runtime --mode offline --out " +
                                        dir_.file("out"),
                                    dir_);
  EXPECT_EQ(r.status, 2) << r.err;
  CL2_EXPECT_CONTAINS(r.err, "cuda-l2-tune: --runtime-db: ");
  CL2_EXPECT_CONTAINS(r.err, "template changed since this kernel was tuned");
  CL2_EXPECT_CONTAINS(r.err, "run tune --retune");
}
