// Tuning on a real GPU: verification of the template families on edge shapes (the planner's
// choice, and each sm90 variant kind pinned), recovery from a variant that writes out of bounds,
// the bitwise run-to-run check, the cuBLASLt algorithms and the traced kernels recorded with the
// trials and baselines. Skipped, with the reason, where no GPU is present.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "db/tuning_db.hpp"
#include "gpu/device_query.hpp"
#include "support/require_gpu.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

#define CL2_REQUIRE_SM90() \
  if (device_cc() != 90) GTEST_SKIP() << "sm90 needs a compute capability 9.0 GPU"

namespace {

int device_cc() { return query_device(0).cc(); }

// Tunes `shapes` and checks that every shape got a verified winner and that no candidate gave a
// wrong answer or crashed (a candidate that does is a bug even when another one wins).
void expect_all_verified(const ScratchDir& dir, const std::string& shapes, const std::string& args) {
  const std::string db_path = dir.file("t.sqlite");
  const auto r = run_tool("tune --shapes " + dir.write("shapes.json", shapes) + " --db " + db_path + " " + args, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  auto db = TuningDb::open(db_path, DbMode::ReadOnly);
  const auto devices = db->devices();
  ASSERT_EQ(devices.size(), 1u);
  const auto problems = db->problems_with_trials(devices.front().first);
  ASSERT_FALSE(problems.empty());
  for (const auto& problem : problems) {
    EXPECT_TRUE(db->winner(devices.front().first, problem).has_value()) << problem.text();
    for (const auto& t : db->trials(devices.front().first, problem)) {
      const bool bad = t.status == TrialStatus::VerifyFailed || t.status == TrialStatus::Fault ||
                       t.status == TrialStatus::Timeout || t.status == TrialStatus::LaunchFailed;
      const auto kernel = db->kernel(t.kernel_id);
      EXPECT_FALSE(bad) << problem.text() << ": " << to_string(t.status) << " " << t.reason << " "
                        << (kernel ? kernel->config_json : "");
    }
  }
}

const Problem kTestFamilyProblem{{256, 256, 256}, Layout::TN, Accum::F32};

// Tunes kTestFamilyProblem with a test family from tests/data/spaces; returns the database.
std::unique_ptr<TuningDb> tune_test_family(const ScratchDir& dir, const std::string& family,
                                           const std::string& extra_args = "") {
  const std::string db_path = dir.file("t.sqlite");
  const auto r = run_tool("tune --shapes " + dir.write("s.json", "[[256, 256, 256]]") + " --db " + db_path +
                              test_family_args(family) + extra_args,
                          dir);
  EXPECT_EQ(r.status, 0) << r.err;
  return TuningDb::open(db_path, DbMode::ReadOnly);
}

const char* kEdgeShapes =
    R"([[1, 1, 8], [3000, 4096, 4096], [64, 12288, 64], [4095, 4097, 4096], [130, 200, 72],
        {"m": 1000, "n": 1000, "k": 1000, "layout": "nn"}, {"m": 777, "n": 512, "k": 4096, "accum": "f16"},
        {"m": 256, "n": 4096, "k": 256, "layout": "nn", "accum": "f16"}])";

}  // namespace

TEST(GpuTune, Sm90VerifiesOnEdgeShapes) {
  CL2_REQUIRE_GPU();
  CL2_REQUIRE_SM90();
  ScratchDir dir;
  expect_all_verified(dir, kEdgeShapes, "--family sm90 --max-candidates 6");
}

TEST(GpuTune, Sm80VerifiesOnEdgeShapes) {
  CL2_REQUIRE_GPU();
  ScratchDir dir;
  expect_all_verified(dir, std::string(kEdgeShapes).insert(1, R"({"m": 333, "n": 335, "k": 77, "layout": "nn"}, )"),
                      "--family sm80 --max-candidates 6");
}

TEST(GpuTune, Sm90RefusesUnalignedNnWithAClearError) {
  CL2_REQUIRE_GPU();
  CL2_REQUIRE_SM90();
  ScratchDir dir;
  const auto r = run_tool("tune --family sm90 --layout nn --db " + dir.file("t.sqlite") + " --shapes " +
                              dir.write("s.json", "[[4095, 4097, 4096]]"),
                          dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("N % 8"), std::string::npos) << r.err;
}

// Side by side, the fault takes the worker with both candidates; each is tried again alone.
TEST(GpuTune, OutOfBoundsVariantIsRecordedAsFailedAndTheRunFinishes) {
  CL2_REQUIRE_GPU();
  for (const std::string side_by_side : {"1", "2"}) {
    SCOPED_TRACE("--side-by-side " + side_by_side);
    ScratchDir dir;
    const auto db = tune_test_family(dir, "naive_fault", " --side-by-side " + side_by_side);
    const auto device = db->devices().front().first;
    const auto trials = db->trials(device, kTestFamilyProblem);
    ASSERT_EQ(trials.size(), 2u);
    int faults = 0;
    for (const auto& t : trials) faults += t.status == TrialStatus::Fault;
    EXPECT_EQ(faults, 1);
    EXPECT_TRUE(db->winner(device, kTestFamilyProblem).has_value());
  }
}

namespace {

struct PinnedVariant {
  const char* name;
  std::string pins;
  const char* shapes;  // edge shapes the variant must get right: M, N, K off its tile, tiny K, M = 1
};

// One configuration per variant kind of the sm90 family (every compile-time and run-time parameter
// pinned), each on shapes that break its tile, cluster and split into uneven pieces.
std::vector<PinnedVariant> sm90_variant_kinds() {
  auto pins = [](int bm, int bn, int stages, int consumers, int chains, int pingpong, int ksplit, int cm, int cn,
                 int epi, int persistent, int split, int stream_k = 0, int swap = 0, int pair = 0, int dsmem = 0,
                 int pdl = 0) {
    return fmt::format("BM={},BN={},STAGES={},CONSUMERS={},ACC_CHAINS={},PINGPONG={},WG_KSPLIT={},CLUSTER_M={},"
                       "CLUSTER_N={},EPI_TMA={},PERSISTENT={},SPLIT_K={},STREAM_K={},SWAP_AB={},KB_PAIR={},"
                       "SPLIT_DSMEM={},PDL={},RASTER={}",
                       bm, bn, stages, consumers, chains, pingpong, ksplit, cm, cn, epi, persistent, split, stream_k,
                       swap, pair, dsmem, pdl, persistent || stream_k ? 4 : 1);
  };
  return {
      {"ksplit_deep_ring", pins(64, 48, 14, 2, 2, 0, 1, 1, 1, 0, 0, 1),
       R"([[1, 1, 8], [130, 200, 72], [64, 4096, 4096], {"m": 200, "n": 136, "k": 1000, "accum": "f16"}])"},
      {"ksplit_persistent_tma_nn", pins(128, 128, 4, 2, 1, 0, 1, 1, 1, 1, 1, 1),
       R"([{"m": 1000, "n": 1000, "k": 1000, "layout": "nn", "accum": "f16"},
           {"m": 3000, "n": 4096, "k": 520, "layout": "nn"}])"},
      {"cluster_2x2", pins(128, 128, 4, 2, 2, 0, 0, 2, 2, 0, 1, 1),
       R"([[1, 1, 8], [4095, 4097, 4096], [130, 200, 72], {"m": 777, "n": 512, "k": 4096, "accum": "f16"}])"},
      {"cluster_1x4_nn", pins(128, 128, 4, 2, 1, 0, 0, 1, 4, 1, 1, 1),
       R"([{"m": 1000, "n": 1000, "k": 1000, "layout": "nn"}, {"m": 256, "n": 4096, "k": 256, "layout": "nn", "accum": "f16"}])"},
      {"cluster_4x1_pingpong", pins(64, 128, 8, 2, 2, 1, 0, 4, 1, 1, 1, 1),
       R"([[3000, 4096, 4096], [64, 12288, 64], [200, 1000, 136]])"},
      {"splitk_cluster_1x2", pins(128, 64, 8, 2, 1, 0, 0, 1, 2, 0, 0, 4),
       R"([[1, 1, 8], [130, 200, 72], [256, 1024, 12288], {"m": 300, "n": 512, "k": 4096, "accum": "f16"}])"},
      {"splitk_ksplit", pins(64, 96, 8, 2, 2, 0, 1, 2, 1, 0, 0, 3),
       R"([[1, 1, 8], [130, 200, 72], [64, 2048, 4096]])"},
      {"splitk_one_consumer", pins(64, 32, 16, 1, 2, 0, 0, 1, 1, 0, 0, 8),
       R"([[1, 256, 12288], [1, 1, 8], [100, 200, 4096]])"},
      // Stream-K: tiles shared by two or three CTAs, CTAs holding several tiles, one k-block.
      {"streamk_whole_tile_store", pins(128, 256, 3, 2, 1, 0, 0, 1, 1, 2, 0, 1, 1),
       R"([[12288, 256, 4096], [3000, 4096, 520], {"m": 1000, "n": 1000, "k": 1000, "layout": "nn", "accum": "f16"}])"},
      {"streamk_ksplit", pins(64, 64, 12, 2, 2, 0, 1, 1, 1, 0, 0, 1, 1),
       R"([[1, 1, 8], [130, 200, 72], [256, 1024, 12288], {"m": 200, "n": 136, "k": 1000, "accum": "f16"}])"},
      {"streamk_one_consumer", pins(64, 128, 8, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1),
       R"([[1, 1, 8], [100, 200, 4096], [64, 4096, 4096]])"},
      {"whole_tile_store_pingpong", pins(128, 128, 5, 2, 1, 1, 0, 1, 1, 2, 1, 1),
       R"([[4096, 4096, 256], {"m": 1000, "n": 1000, "k": 1000, "layout": "nn"}])"},
      {"whole_tile_store_cluster_1x2", pins(256, 128, 3, 2, 1, 0, 0, 1, 2, 2, 1, 1),
       R"([[3000, 4096, 520], {"m": 777, "n": 512, "k": 4096, "accum": "f16"}])"},
      // TMA stores of tiles whose width is not a multiple of 64: chunks of 32, 16 and 8 columns
      // (64-, 32- and unswizzled 16-byte rows), one chunk at a time or the whole tile.
      {"chunks_32_cols_cluster_1x4", pins(128, 96, 6, 2, 1, 0, 0, 1, 4, 1, 0, 1),
       R"([[128, 11008, 4096], [130, 200, 72], [127, 1000, 520], {"m": 200, "n": 136, "k": 1000, "accum": "f16"}])"},
      {"chunks_16_cols_whole_tile_store", pins(128, 80, 6, 2, 1, 0, 0, 1, 1, 2, 1, 1),
       R"([[3000, 4096, 520], [130, 200, 72], {"m": 777, "n": 520, "k": 4096, "accum": "f16"}])"},
      {"chunks_8_cols", pins(64, 72, 8, 1, 1, 0, 0, 1, 2, 1, 0, 1),
       R"([[1, 1000, 4096], [130, 200, 72], [64, 4104, 520]])"},
      // Swapped wide ping-pong tiles (M > N): M off the 176-column tile, N off the 128-row one.
      {"wide_pingpong_swapped_cluster_2x1", pins(128, 176, 4, 2, 1, 1, 0, 2, 1, 1, 1, 1, 0, 1),
       R"([[3000, 1000, 520], [1000, 136, 4096], {"m": 777, "n": 520, "k": 1000, "accum": "f16"}])"},
      {"rows_192_cluster_1x2", pins(192, 32, 7, 1, 2, 0, 0, 1, 2, 0, 0, 1),
       R"([[1, 1, 8], [12288, 64, 1024], [130, 200, 72], {"m": 200, "n": 136, "k": 1000, "accum": "f16"}])"},
      // Swapped operands (C^T = B A^T): M on the tile's columns, uneven in M, N and K, M = 1.
      {"swapped_tma_store_cluster_1x2", pins(64, 32, 16, 1, 2, 0, 0, 1, 2, 1, 0, 1, 0, 1),
       R"([[1, 4096, 4096], [3, 1000, 4096], [17, 4104, 520], [127, 2048, 1024]])"},
      {"swapped_192_splitk", pins(192, 32, 7, 1, 1, 0, 0, 1, 1, 0, 0, 4, 0, 1),
       R"([[1, 1, 8], [64, 2048, 1024], [130, 200, 72], [100, 1000, 4096]])"},
      {"swapped_narrow_direct_store", pins(64, 8, 16, 1, 2, 0, 0, 1, 1, 0, 0, 1, 0, 1),
       R"([[1, 1, 8], [1, 4096, 4096], [5, 777, 1000]])"},
      {"swapped_ksplit_whole_tile_store", pins(128, 64, 6, 2, 1, 0, 1, 1, 1, 2, 1, 1, 0, 1),
       R"([[256, 4096, 256], [200, 1000, 136], {"m": 64, "n": 4096, "k": 1000, "accum": "f16"}])"},
      {"swapped_streamk", pins(64, 64, 12, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1),
       R"([[64, 4096, 4096], [100, 200, 4096], [1, 1, 8]])"},
      {"swapped_cluster_2x2_pingpong", pins(128, 64, 4, 2, 1, 1, 0, 2, 2, 1, 1, 1, 0, 1),
       R"([{"m": 200, "n": 4096, "k": 1000, "accum": "f16"}, [1000, 4096, 512]])"},
      // Pairs of k-blocks per stage (3-D boxes; one box per k-block for multicast shares): an odd
      // count of k-blocks (K = 192, 576), K = 64, M = 1, split-K and stream-K in pair units.
      {"pair_narrow", pins(64, 8, 11, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1),
       R"([[64, 64, 1024], [1, 1, 64], [130, 200, 192], [64, 4096, 4096]])"},
      {"pair_swapped_cluster_1x2", pins(64, 32, 8, 1, 2, 0, 0, 1, 2, 1, 0, 1, 0, 1, 1),
       R"([[1, 4096, 4096], [3, 1000, 4096], [17, 4104, 576], [127, 2048, 1024]])"},
      {"pair_cluster_2x1_ksplit_splitk", pins(64, 32, 8, 2, 2, 0, 1, 2, 1, 0, 0, 4, 0, 0, 1),
       R"([[1, 256, 12288], [100, 200, 4096], [130, 200, 192]])"},
      {"pair_streamk", pins(64, 64, 6, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1),
       R"([[64, 4096, 4096], [100, 200, 4096], [1, 1, 64]])"},
      // 4 and 8 k atoms a box (weight streaming): counts of atoms that leave the last box part
      // empty (K = 320, 576), one atom (K = 64), M = 1, 3, 17, 127, persistent and DSMEM split.
      {"atoms4_swapped", pins(128, 8, 3, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 2),
       R"([[1, 12288, 4096], [3, 1000, 576], [17, 4104, 320], [127, 2048, 1024], [1, 1, 64]])"},
      {"atoms4_swapped_persistent", pins(64, 16, 5, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 2),
       R"([[16, 15360, 5120], [3, 1000, 576], [17, 200, 320]])"},
      {"atoms8_swapped_dsmem", pins(64, 8, 3, 1, 1, 0, 0, 1, 1, 0, 0, 2, 0, 1, 3, 1),
       R"([[1, 4096, 4096], [3, 1000, 576], [17, 200, 1600], [127, 520, 1024]])"},
      // Split-K slices as a cluster, partials read from the peers' shared memory: 8, 4, 3 and 6
      // slices, one or two consumers, WG_KSPLIT, swapped, pairs; grids of more than one wave.
      {"splitk_dsmem_one_consumer", pins(64, 32, 16, 1, 2, 0, 0, 1, 1, 0, 0, 8, 0, 0, 0, 1),
       R"([[1, 256, 12288], [1, 1, 8], [100, 200, 4096], [4096, 256, 4096]])"},
      {"splitk_dsmem_cooperative", pins(128, 64, 8, 2, 1, 0, 0, 1, 1, 0, 0, 4, 0, 0, 0, 1),
       R"([[130, 200, 72], [256, 1024, 12288], {"m": 300, "n": 512, "k": 4096, "accum": "f16"}])"},
      {"splitk_dsmem_ksplit", pins(64, 96, 8, 2, 2, 0, 1, 1, 1, 0, 0, 3, 0, 0, 0, 1),
       R"([[1, 1, 8], [130, 200, 72], [64, 2048, 4096]])"},
      {"splitk_dsmem_swapped", pins(192, 32, 7, 1, 1, 0, 0, 1, 1, 0, 0, 4, 0, 1, 0, 1),
       R"([[1, 1, 8], [64, 2048, 1024], [100, 1000, 4096]])"},
      {"splitk_dsmem_pair", pins(64, 64, 6, 1, 1, 0, 0, 1, 1, 0, 0, 6, 0, 0, 1, 1),
       R"([[256, 256, 12288], [100, 200, 4096], [130, 200, 192]])"},
      // Programmatic dependent launch: each timed call overlaps the one before, weights requested
      // before the wait (fewer k-blocks than the ring, or more; several tiles per CTA), and the
      // workspace's tile counters of split-K reused call after call, each verified after many.
      {"pdl_swapped_pairs", pins(64, 8, 10, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1),
       R"([{"m": 1, "n": 4096, "k": 4096, "l2": "rotate"}, [3, 1000, 576], [17, 4104, 320], [127, 2048, 1024], [1, 1, 64]])"},
      {"pdl_splitk_cluster_2x1", pins(128, 64, 6, 2, 1, 0, 0, 2, 1, 0, 0, 2, 0, 0, 0, 0, 1),
       R"([[1, 1, 8], [130, 200, 72], {"m": 256, "n": 1024, "k": 12288, "l2": "rotate"}])"},
      {"pdl_persistent_pingpong_swapped", pins(128, 64, 4, 2, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1),
       R"([[1000, 4096, 512], {"m": 200, "n": 4096, "k": 1000, "accum": "f16"}])"},
  };
}

}  // namespace

TEST(GpuTune, Sm90VariantKindsVerifyOnEdgeShapes) {
  CL2_REQUIRE_GPU();
  CL2_REQUIRE_SM90();
  for (const auto& variant : sm90_variant_kinds()) {
    SCOPED_TRACE(variant.name);
    ScratchDir dir;
    expect_all_verified(dir, variant.shapes, "--family sm90 --max-candidates 0 --pin " + variant.pins);
  }
}

// Side by side too: each candidate's output is compared with its own first one (by hash), not
// with whichever candidate ran last. Raced too: the brief round does not check it again, its
// screening (both are leaders) and the final round do.
TEST(GpuTune, ResultsThatDifferBetweenLaunchesNeverWin) {
  CL2_REQUIRE_GPU();
  for (const std::string options : {" --side-by-side 1", " --side-by-side 4", " --strategy race"}) {
    SCOPED_TRACE(options);
    ScratchDir dir;
    const auto db = tune_test_family(dir, "naive_nondeterministic", options);
    const auto device = db->devices().front().first;
    int flagged = 0, timed = 0;
    for (const auto& t : db->trials(device, kTestFamilyProblem)) {
      const auto kernel = db->kernel(t.kernel_id);
      ASSERT_TRUE(kernel.has_value());
      if (kernel->config_json.find("\"FAULT\":3") == std::string::npos) {
        EXPECT_EQ(t.status, TrialStatus::Ok) << t.reason;
        timed += t.status == TrialStatus::Ok;
        continue;
      }
      EXPECT_EQ(t.status, TrialStatus::VerifyFailed);
      EXPECT_NE(t.reason.find("not deterministic"), std::string::npos) << t.reason;
      ++flagged;
    }
    EXPECT_EQ(flagged, 1);
    EXPECT_GE(timed, 1);
    const auto winner = db->winner(device, kTestFamilyProblem);
    ASSERT_TRUE(winner.has_value());
    EXPECT_EQ(db->kernel(winner->kernel_id)->config_json.find("\"FAULT\":3"), std::string::npos);
  }
}

// Both cuBLASLt baselines record the algorithm cuBLASLt ran, and the best-kernel row carries them.
TEST(GpuTune, CublasltBaselinesRecordTheirAlgorithm) {
  CL2_REQUIRE_GPU();
  ScratchDir dir;
  const auto db = tune_test_family(dir, "naive_many");
  const std::int64_t device = db->devices().at(0).first;
  int lt_baselines = 0;
  for (const auto& b : db->baselines(device, kTestFamilyProblem)) {
    const bool lt = b.provider == Provider::CublasltHeuristic || b.provider == Provider::CublasltAutotune;
    lt_baselines += lt;
    ASSERT_EQ(b.lt_algo.has_value(), lt) << to_string(b.provider);
    if (!lt) continue;
    EXPECT_EQ(b.lt_algo->tile.find("unknown"), std::string::npos) << b.lt_algo->tile;
    EXPECT_EQ(b.lt_algo->stages.find("unknown"), std::string::npos) << b.lt_algo->stages;
    EXPECT_EQ(b.lt_algo->cluster.find("unknown"), std::string::npos) << b.lt_algo->cluster;
    EXPECT_GE(b.lt_algo->splitk, 1);
    EXPECT_EQ(b.lt_algo->reduction.find("unknown"), std::string::npos) << b.lt_algo->reduction;
  }
  EXPECT_EQ(lt_baselines, 2);
  const auto rows = db->winner_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].cublaslt_heuristic_algo.has_value());
  EXPECT_TRUE(rows[0].cublaslt_autotune_algo.has_value());
}

// With --trace-kernels every timed call is traced as one of its timed samples: our candidates ran
// our kernel once per call on the stream they were given and their event times cover it, so none
// is flagged; the baselines name the libraries' kernels.
TEST(GpuTune, TimedCallsAreTracedAndPlainOnesAreNotFlagged) {
  CL2_REQUIRE_GPU();
  ScratchDir dir;
  const auto db = tune_test_family(dir, "naive_many", " --trace-kernels");
  const std::int64_t device = db->devices().at(0).first;
  const auto trials = db->trials(device, kTestFamilyProblem);
  ASSERT_FALSE(trials.empty());
  for (const auto& t : trials) {
    EXPECT_EQ(t.status, TrialStatus::Ok) << t.reason;
    ASSERT_TRUE(t.trace.has_value());
    ASSERT_TRUE(t.trace->traced()) << t.trace->absent;
    ASSERT_EQ(t.trace->kernels.size(), 1u);
    EXPECT_EQ(t.trace->kernels[0].name, "cl2_gemm");
    EXPECT_TRUE(t.trace->kernels[0].on_given_stream);
    EXPECT_GE(t.trace->calls, 1);
    EXPECT_EQ(t.trace->kernels[0].launches, t.trace->calls);  // one per call of the traced sample
    EXPECT_GT(t.trace->kernels[0].duration_us, 0.0);
  }
  for (const auto& b : db->baselines(device, kTestFamilyProblem)) {
    ASSERT_TRUE(b.trace && b.trace->traced()) << to_string(b.provider);
    EXPECT_FALSE(b.trace->kernels.empty()) << to_string(b.provider);
    EXPECT_EQ(b.trace_flag, "") << to_string(b.provider);
  }
  EXPECT_EQ(db->winner_rows().at(0).library_kernels.size(), 4u);
}
