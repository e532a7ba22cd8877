// The sm90 family without a GPU: its space keeps the alignment, shared-memory, cluster and split-K
// rules for every candidate, every candidate of the quickstart shapes compiles for sm_90a, and the
// SASS of a sample across its features holds Hopper's own instructions (HGMMA, TMA loads, their
// multicast form where a cluster shares tiles).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "codegen/codegen.hpp"
#include "core/errors.hpp"
#include "compiler/kernel_compiler.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

const FamilySpec& sm90() { return builtin_families().at("sm90"); }

// sm90's plan of 24 for a TN f32 shape, alone or, as tune plans by default, sharing the slots with sm80.
std::vector<Candidate> sm90_plan(GemmShape shape, bool with_sm80 = false) {
  std::vector<const FamilySpec*> families = {&sm90()};
  if (with_sm80) families.insert(families.begin(), &builtin_families().at("sm80"));
  return plan_candidates(families, {shape, Layout::TN, Accum::F32}, limits_for_arch("sm_90a"), 24);
}

// A ping-pong consumer holding a whole 128-row tile 144 columns wide or more (the large shapes' tiles).
bool wide_pingpong(const Candidate& c) {
  return c.config.family == "sm90" && c.config.at("PINGPONG") == 1 && c.config.at("BM") == 128 &&
         c.config.at("BN") >= 144;
}

std::string sass_of(const std::string& cubin) {
  const std::string tool = run_command(source_path("scripts/find-cuobjdump.sh"), ScratchDir()).out;
  if (tool.empty()) return "";
  const std::string path = tool.substr(0, tool.find('\n'));
  FILE* pipe = popen(("\"" + path + "\" -sass \"" + cubin + "\" 2>&1").c_str(), "r");
  std::string text;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof(buffer), pipe)) text.append(buffer, n);
  return pclose(pipe) == 0 ? text : "";  // e.g. no nvdisasm beside cuobjdump
}

// An sm90 configuration, its features in the order the samples below list them.
std::map<std::string, std::int64_t> sample_params(int bm, int bn, int stages, int consumers, int chains, int pingpong,
                                                  int ksplit, int cm, int cn, int epi, int split, int stream_k = 0,
                                                  int swap = 0, int pair = 0, int dsmem = 0, int pdl = 0) {
  return {{"BM", bm},           {"BN", bn},          {"STAGES", stages},  {"CONSUMERS", consumers}, {"ACC_CHAINS", chains},
          {"PINGPONG", pingpong}, {"WG_KSPLIT", ksplit}, {"CLUSTER_M", cm}, {"CLUSTER_N", cn},
          {"EPI_TMA", epi},     {"PERSISTENT", stream_k ? 0 : 1}, {"SPLIT_K", split}, {"STREAM_K", stream_k},
          {"SWAP_AB", swap},    {"KB_PAIR", pair},   {"SPLIT_DSMEM", dsmem}, {"PDL", pdl}, {"RASTER", 8}};
}

}  // namespace

TEST(Sm90Space, EveryCandidateKeepsTheRules) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const std::vector<Problem> problems = {
      {{4096, 4096, 4096}, Layout::TN, Accum::F32}, {{8192, 8192, 8192}, Layout::NN, Accum::F32},
      {{64, 64, 12288}, Layout::TN, Accum::F32},    {{3000, 4096, 4096}, Layout::TN, Accum::F16},
      {{4095, 4097, 4096}, Layout::TN, Accum::F32}, {{1, 1, 8}, Layout::TN, Accum::F32},
      {{1, 12288, 4096}, Layout::TN, Accum::F32, L2Policy::Rotate}};
  for (const auto& problem : problems) {
    SCOPED_TRACE(problem.text());
    const auto candidates = enumerate_family(sm90(), problem, h200);
    ASSERT_FALSE(candidates.empty());
    for (const auto& c : candidates) {
      const auto& g = c.launch;
      EXPECT_LE(g.smem_bytes, h200.smem_optin) << c.config.label();
      const bool stream_k = c.config.at("STREAM_K") == 1;
      const bool dsmem = c.config.at("SPLIT_DSMEM") == 1;
      EXPECT_EQ(g.workspace_bytes > 0, (c.config.at("SPLIT_K") > 1 && !dsmem) || stream_k) << c.config.label();
      const std::int64_t cluster = c.config.at("CLUSTER_M") * c.config.at("CLUSTER_N");
      EXPECT_LE(cluster, 4) << c.config.label();
      // Back-to-back calls on fresh weights (rotate) overlap their predecessor; no others do.
      EXPECT_EQ(c.config.at("PDL"), problem.l2 == L2Policy::Rotate ? 1 : 0) << c.config.label();
      EXPECT_EQ(g.programmatic, c.config.at("PDL") >= 1) << c.config.label();
      if (dsmem) {  // the cluster is one tile's slices
        EXPECT_EQ(cluster, 1) << c.config.label();
        EXPECT_GT(c.config.at("SPLIT_K"), 1) << c.config.label();
        EXPECT_LE(c.config.at("SPLIT_K"), 8) << c.config.label();
      }
      EXPECT_EQ(g.cluster[0], dsmem ? c.config.at("SPLIT_K") : cluster) << c.config.label();
      EXPECT_EQ(g.grid[0] % g.cluster[0], 0) << c.config.label();
      if ((c.config.at("SPLIT_K") > 1 && !dsmem) || stream_k) {
        EXPECT_LE(g.grid[0], h200.num_sms) << "one wave: " << c.config.label();
      }
      if (stream_k) {
        EXPECT_EQ(cluster, 1) << c.config.label();
      }
      if (c.config.at("WG_KSPLIT")) {
        EXPECT_EQ(c.config.at("STAGES") % 2, 0) << c.config.label();
      }
      EXPECT_EQ(g.threads, 128 * (c.config.at("CONSUMERS") + 1));
      if (c.config.at("EPI_TMA")) {
        EXPECT_EQ(problem.shape.n % 8, 0) << c.config.label();
      }
      bool has_c_map = false;
      for (const auto& map : g.tensor_maps) has_c_map = has_c_map || map.operand == "c";
      EXPECT_EQ(has_c_map, c.config.at("EPI_TMA") >= 1);
      const std::int64_t pair = c.config.at("KB_PAIR");  // 2^pair k atoms per stage
      if (pair) {
        EXPECT_TRUE(problem.layout == Layout::TN && problem.shape.k % 64 == 0) << c.config.label();
      }
      for (const auto& map : g.tensor_maps) {
        EXPECT_EQ(map.box_depth > 0, pair > 0 && map.operand != "c") << map.operand << " " << c.config.label();
        // A lone CTA's box holds every atom of its stage; a multicast share, one atom at a time.
        if (map.box_depth > 0 && cluster == 1) {
          EXPECT_EQ(map.box_depth, 1 << pair) << c.config.label();
        }
      }
    }
  }
}

// A decode shape under a cold L2 policy only streams weights: its plan spends the slots on what
// moves DRAM time (tile height, k atoms per box, schedule), not on consumer layouts or stream-K.
TEST(Sm90Space, WeightStreamingPlanVariesTileAtomsAndSchedule) {
  const auto plan = plan_candidates({&sm90()}, {{1, 12288, 4096}, Layout::TN, Accum::F32, L2Policy::Rotate},
                                    limits_for_arch("sm_90a"), 24);
  ASSERT_EQ(plan.size(), 48u);  // 24 variants, each beside its twin without PDL
  std::set<std::int64_t> heights, atoms;
  bool one_wave = false, persistent = false;
  for (const auto& c : plan) {
    SCOPED_TRACE(c.config.label());
    EXPECT_EQ(c.config.at("STREAM_K"), 0);
    if (c.config.at("SWAP_AB") == 1) {
      EXPECT_EQ(c.config.at("BN"), 8);
      EXPECT_EQ(c.config.at("CONSUMERS"), 1);
      EXPECT_EQ(c.config.at("ACC_CHAINS"), 1);
      EXPECT_EQ(c.config.at("EPI_TMA"), 0);
      heights.insert(c.config.at("BM"));
      atoms.insert(c.config.at("KB_PAIR"));
      one_wave = one_wave || (c.config.at("PERSISTENT") == 0 && c.config.at("BM") >= 128);
      persistent = persistent || c.config.at("PERSISTENT") == 1;
      if (c.config.at("KB_PAIR") >= 2) {
        EXPECT_GE(c.config.at("STAGES"), 3);
      }
    }
  }
  EXPECT_GE(heights.size(), 3u);
  EXPECT_TRUE(atoms.count(2) && atoms.count(3));
  EXPECT_TRUE(one_wave && persistent);
}

// A kernel that streams a weight matrix from DRAM once (M up to 32 on one tile column) sizes its
// ring so that the grid keeps 8 to 14 MB of loads in flight (3 stages where even that holds more,
// the deepest that fits where none reaches 8), with as many CTAs per SM as make the grid resident.
TEST(Sm90Space, WeightStreamingRingsKeepEightToFourteenMegabytesInFlight) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  for (const GemmShape shape : {GemmShape{1, 13824, 5120}, GemmShape{16, 4096, 4096}, GemmShape{32, 5120, 5120}}) {
    const Problem problem{shape, Layout::TN, Accum::F32, L2Policy::Rotate};
    SCOPED_TRACE(problem.text());
    bool several_per_sm = false;
    std::size_t streaming = 0;
    for (const auto& c : enumerate_family(sm90(), problem, h200)) {
      const auto& p = c.config;
      const std::int64_t rows = p.at("SWAP_AB") ? shape.n : shape.m, cols = p.at("SWAP_AB") ? shape.m : shape.n;
      const bool one_column = p.at("BM") >= rows || p.at("BN") >= cols;
      if (!one_column || p.at("PERSISTENT") || p.at("STREAM_K")) continue;
      SCOPED_TRACE(p.label());
      ++streaming;
      const std::int64_t ctas = c.launch.grid[0];
      const std::int64_t per_sm = (ctas + h200.num_sms - 1) / h200.num_sms;
      EXPECT_LE(per_sm, 3);
      EXPECT_LE(per_sm * (c.launch.smem_bytes + 1024), h200.smem_per_sm);
      several_per_sm = several_per_sm || per_sm > 1;
      const std::int64_t stage = (p.at("BM") + p.at("BN")) * 2 * 64 * (std::int64_t(1) << p.at("KB_PAIR"));
      const double in_flight_mb = double(ctas * p.at("STAGES") * stage) / 1e6;
      const bool deepest = (p.at("STAGES") + 1) * stage + c.launch.smem_bytes > h200.smem_per_sm / per_sm - 1024;
      EXPECT_TRUE(in_flight_mb >= 8.0 || deepest) << in_flight_mb << " MB";
      EXPECT_TRUE(in_flight_mb <= 14.0 || p.at("STAGES") == 3) << in_flight_mb << " MB";
    }
    EXPECT_GT(streaming, 0u);
    // Several CTAs per SM where 64-row weight tiles outnumber the SMs; 32x5120x5120's 80 tiles
    // run unsplit in one wave (the NARROW_SKINNY rule), one CTA per SM.
    EXPECT_EQ(several_per_sm, shape.n / 64 > h200.num_sms);
  }
}

// Weights streamed from DRAM past 65 to 128 activation rows, wide enough to fill the SMs with
// 64-row tiles: every planned tile spans all the activations and stores C through TMA, and
// clusters that share the activation tile are among the candidates, 96-wide tiles storing in
// narrow chunks among them. With 33 to 64 rows, wide weights bring 2 or 4 k atoms a stage. Narrower
// weights with a short K run unsplit in one wave (NARROW_SKINNY); M = 32 keeps its k atoms.
TEST(Sm90Space, SkinnyDramPlansFollowTheMeasuredRules) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const auto plan = [&](GemmShape shape) {
    return plan_candidates({&sm90()}, {shape, Layout::TN, Accum::F32, L2Policy::Rotate}, h200, 24);
  };
  bool shares_activations = false;
  for (const auto& c : plan({128, 15360, 5120})) {
    SCOPED_TRACE(c.config.label());
    const bool swap = c.config.at("SWAP_AB") == 1;
    EXPECT_GE(swap ? c.config.at("BN") : c.config.at("BM"), 128);
    EXPECT_GE(c.config.at("EPI_TMA"), 1);
    shares_activations = shares_activations || (swap ? c.config.at("CLUSTER_M") : c.config.at("CLUSTER_N")) > 1;
  }
  EXPECT_TRUE(shares_activations);
  // 96 columns make 115 tiles of 11008 weight rows where 128 make 86: such tiles store through
  // TMA in 32-column chunks, and lead the plan (measured: 0.889x -> 0.971x of cuBLASLt-autotune).
  bool narrow_chunks = false;
  for (const auto& c : plan({128, 11008, 4096}))
    narrow_chunks = narrow_chunks || (c.config.at("BN") == 96 && c.config.at("EPI_TMA") >= 1);
  EXPECT_TRUE(narrow_chunks);
  for (const auto& c : plan({64, 11008, 4096})) {
    SCOPED_TRACE(c.config.label());
    EXPECT_GE(c.config.at("KB_PAIR"), 1);
    EXPECT_LE(c.config.at("KB_PAIR"), 2);
  }
  bool split_activations = false, one_atom_at_32 = false;
  for (const auto& c : plan({128, 4096, 4096}))
    split_activations = split_activations || (c.config.at("SWAP_AB") == 1 && c.config.at("BN") < 128);
  for (const auto& c : plan({32, 11008, 4096})) one_atom_at_32 = one_atom_at_32 || c.config.at("KB_PAIR") == 0;
  EXPECT_TRUE(split_activations);
  EXPECT_TRUE(one_atom_at_32);
  // Narrower weights (64 or 80 tiles of 4096 or 5120 rows) with a short K: one wave of unsplit
  // single-consumer tiles, the activations on the wgmma-N side, storing directly. At M = 64 they
  // may stage one k atom at a time in a ring of 13-14 (cuBLASLt's shape there), beside the
  // H200's fastest of every variant at 64x5120x5120 (swapped 64x64, 2 k atoms, 7 stages). A long
  // K still splits.
  for (const GemmShape shape : {GemmShape{32, 5120, 5120}, GemmShape{64, 5120, 5120}, GemmShape{64, 4096, 4096}}) {
    bool two_atoms_seven_stages = false, one_atom_deep_ring = false;
    for (const auto& c : plan(shape)) {
      SCOPED_TRACE(c.config.label());
      EXPECT_EQ(c.config.at("SPLIT_K"), 1);
      EXPECT_EQ(c.config.at("CONSUMERS"), 1);
      EXPECT_EQ(c.config.at("EPI_TMA"), 0);
      EXPECT_EQ(c.config.at("SWAP_AB"), 1);
      const bool square64 = c.config.at("BM") == 64 && c.config.at("BN") == 64;
      two_atoms_seven_stages =
          two_atoms_seven_stages || (square64 && c.config.at("KB_PAIR") == 1 && c.config.at("STAGES") == 7);
      one_atom_deep_ring = one_atom_deep_ring || (square64 && c.config.at("KB_PAIR") == 0 && c.config.at("STAGES") >= 13);
    }
    EXPECT_EQ(one_atom_deep_ring, shape.m == 64);
    if (shape.n == 5120) {
      EXPECT_EQ(two_atoms_seven_stages, shape.m == 64);
    }
  }
  bool long_k_splits = false;
  for (const auto& c : plan({64, 5120, 13824})) long_k_splits = long_k_splits || c.config.at("SPLIT_K") > 1;
  EXPECT_TRUE(long_k_splits);
}

// Operands that stay in the L2 (warm, under half of it) are not streamed: there the plan keeps
// swapped tiles wider than M and the other consumer layouts.
TEST(Sm90Space, InCacheSmallMPlanKeepsWideTilesAndConsumerLayouts) {
  const auto plan = plan_candidates({&sm90()}, {{16, 1024, 1024}, Layout::TN, Accum::F32, L2Policy::Warm},
                                    limits_for_arch("sm_90a"), 24);
  bool wide = false, two_chains = false;
  for (const auto& c : plan) {
    wide = wide || (c.config.at("SWAP_AB") == 1 && c.config.at("BN") > 16);
    two_chains = two_chains || c.config.at("ACC_CHAINS") == 2;
  }
  EXPECT_TRUE(wide);
  EXPECT_TRUE(two_chains);
}

TEST(Sm90Space, MisalignedShapesGetTheRuleThatExcludesThem) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const FamilySpec* family = &sm90();
  try {
    plan_candidates({family}, {{64, 64, 4095}, Layout::TN, Accum::F32}, h200, 8);
    FAIL() << "K % 8 != 0 must leave sm90 nothing";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("K % 8"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(enumerate_family(sm90(), {{64, 64, 64}, Layout::TN, Accum::F32}, limits_for_arch("sm_80")).empty());
}

// Large shapes (4 tiles or more per CTA, K >= 2048) plan ping-pong consumers that each hold a whole
// 128-row tile 144 to 192 wide (measured on the H200: they won 6 of issue 9's 9 large shapes,
// db/results/large-explore/); cooperative consumers still hold at most 128 accumulators, and
// shapes with few tiles per CTA keep ping-pong tiles to 128 accumulators.
TEST(Sm90Space, LargeShapesPlanWidePingPongTiles) {
  const auto accumulators = [](const Candidate& c) {
    const bool whole = c.config.at("PINGPONG") == 1 || c.config.at("WG_KSPLIT") == 1;
    return c.config.at("BM") / (whole ? 1 : c.config.at("CONSUMERS")) / 64 * c.config.at("BN") / 2;
  };
  for (const GemmShape shape : {GemmShape{6144, 6144, 2048}, GemmShape{4096, 14336, 4096}, GemmShape{8192, 8192, 8192}}) {
    int wide = 0;
    for (const auto& c : sm90_plan(shape)) {
      SCOPED_TRACE(c.config.label());
      wide += wide_pingpong(c);
      if (c.config.at("PINGPONG") == 0 && c.config.at("CONSUMERS") == 2) {
        EXPECT_LE(accumulators(c), 128);
      }
    }
    EXPECT_GE(wide, 2) << shape.m << "x" << shape.n << "x" << shape.k;
  }
  for (const GemmShape shape : {GemmShape{1024, 1024, 1024}, GemmShape{4096, 4096, 256}})
    for (const auto& c : sm90_plan(shape)) {
      if (c.config.at("PINGPONG") == 1) {
        EXPECT_LE(accumulators(c), 128) << c.config.label();
      }
    }
}

// K = 1024 with many tiles per CTA plans the wide ping-pong tiles too (on an H100 12288x4096x1024
// went from 0.900x to 0.982x of cuBLASLt-autotune; 4096x12288x1024 from 0.887x to 0.965x once the
// model's factor for them ranked them ahead of staged cooperative tiles), and no ping-pong variant
// stores through whole-tile staging, on any shape.
TEST(Sm90Space, ShortKPlansWidePingPongStoringInChunks) {
  for (const GemmShape shape : {GemmShape{12288, 4096, 1024}, GemmShape{12288, 12288, 1024}, GemmShape{4096, 12288, 1024}}) {
    const auto candidates = sm90_plan(shape, true);
    EXPECT_GE(std::count_if(candidates.begin(), candidates.end(), wide_pingpong), 2)
        << shape.m << "x" << shape.n << "x" << shape.k;
  }
  for (const GemmShape shape : {GemmShape{1024, 1024, 64}, GemmShape{12288, 1024, 256}, GemmShape{8192, 8192, 2048}})
    for (const auto& c : sm90_plan(shape)) {
      EXPECT_FALSE(c.config.at("PINGPONG") == 1 && c.config.at("EPI_TMA") == 2) << c.config.label();
    }
}

// Where M > N, long tile loops plan wide ping-pong tiles with the operands swapped, so that M lies
// along the tile's 16-column steps and N (a multiple of 128) along its rows (on an H100
// 14336x4096x4096 went from 0.961x to 0.991x of cuBLASLt-autotune); elsewhere only M < N swaps.
TEST(Sm90Space, LongTileLoopsSwapWhereMExceedsN) {
  const auto swapped_wide_pingpong = [](const Candidate& c) {
    return wide_pingpong(c) && c.config.at("SWAP_AB") == 1;
  };
  for (const GemmShape shape : {GemmShape{14336, 4096, 4096}, GemmShape{12288, 1024, 4096}}) {
    const auto candidates = sm90_plan(shape, true);
    EXPECT_GE(std::count_if(candidates.begin(), candidates.end(), swapped_wide_pingpong), 2)
        << shape.m << "x" << shape.n << "x" << shape.k;
  }
  for (const GemmShape shape : {GemmShape{12288, 64, 64}, GemmShape{4096, 1024, 256}, GemmShape{8192, 8192, 8192}})
    for (const auto& c : sm90_plan(shape, true)) {
      EXPECT_FALSE(c.config.family == "sm90" && c.config.at("SWAP_AB") == 1)
          << shape.m << "x" << shape.n << "x" << shape.k << ": " << c.config.label();
    }
}

// A grid of few tile rows and many columns (1024 rows: 8 of 128) is planned with a raster group
// that spans all its tile rows, so the tiles are walked column-major and each weight panel is read
// by one wave (measured on an H100: 1024x12288x4096 0.918x -> 1.008x of cuBLASLt-autotune).
TEST(Sm90Space, FewTileRowsPlanColumnMajorWalk) {
  const auto plan = sm90_plan({1024, 12288, 4096});
  const auto walks_column_major = [](const Candidate& c) {
    if (c.config.at("SWAP_AB") == 1) return false;
    const std::int64_t cluster_rows = c.config.at("BM") * c.config.at("CLUSTER_M");
    return c.config.at("RASTER") >= (1024 + cluster_rows - 1) / cluster_rows;
  };
  EXPECT_TRUE(std::any_of(plan.begin(), plan.end(), walks_column_major));
}

// A tile whose width is not a multiple of 64 stores C in chunks of the widest of 32, 16 and 8
// columns that divides it, through a C map of that box width in the TMA swizzle of its rows.
// A PDL kernel's launch overlaps the previous call (the launch sets programmatic stream
// serialization from the geometry); any other configuration's does not.
TEST(Sm90Space, PdlConfigurationsLaunchProgrammatically) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const Problem problem{{1, 4096, 4096}, Layout::TN, Accum::F32, L2Policy::Rotate};
  const auto candidates = enumerate_family(sm90(), problem, h200);
  ASSERT_FALSE(candidates.empty());
  for (const std::int64_t pdl : {0, 1, 2, 3}) {
    KernelConfig config = candidates.front().config;
    config.params["PDL"] = pdl;
    const LaunchGeometry g = launch_geometry(sm90(), config_variables(sm90(), config, problem, h200));
    EXPECT_EQ(g.programmatic, pdl >= 1) << config.label();
  }
}

// Under --l2 rotate each planned variant (PDL=1) is followed by its twin without the overlap
// (PDL=0, the same variant otherwise), since only timing tells which pays; a warm plan has neither.
TEST(Sm90Space, RotatePlansEachVariantBesideItsTwinWithoutOverlap) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const GemmShape shape{64, 5120, 5120};
  const auto rotate = plan_candidates({&sm90()}, {shape, Layout::TN, Accum::F32, L2Policy::Rotate}, h200, 24);
  ASSERT_EQ(rotate.size(), 48u);
  for (std::size_t i = 0; i < rotate.size(); i += 2) {
    KernelConfig twin = rotate[i].config;
    twin.params["PDL"] = 0;
    EXPECT_EQ(rotate[i].config.at("PDL"), 1) << rotate[i].config.label();
    EXPECT_EQ(rotate[i + 1].config, twin) << rotate[i + 1].config.label();
    EXPECT_FALSE(rotate[i + 1].launch.programmatic) << rotate[i + 1].config.label();
  }
  const auto warm = sm90_plan(shape);
  ASSERT_EQ(warm.size(), 24u);
  for (const auto& c : warm) EXPECT_EQ(c.config.at("PDL"), 0) << c.config.label();
}

TEST(Sm90Space, TmaStoreChunksFollowTheTileWidth) {
  const std::vector<std::pair<std::int64_t, int>> widths = {{128, 64}, {96, 32}, {80, 16}, {72, 8}};
  for (const auto& [bn, chunk] : widths) {
    SCOPED_TRACE(bn);
    const auto pinned = pin_family(sm90(), {{"BN", bn}, {"EPI_TMA", 1}, {"SWAP_AB", 0}}, nullptr);
    ASSERT_TRUE(pinned.has_value());
    const auto candidates =
        enumerate_family(*pinned, {{128, 11008, 4096}, Layout::TN, Accum::F32}, limits_for_arch("sm_90a"));
    ASSERT_FALSE(candidates.empty());
    for (const auto& c : candidates) {
      const auto map = std::find_if(c.launch.tensor_maps.begin(), c.launch.tensor_maps.end(),
                                    [](const TensorMapBox& m) { return m.operand == "c"; });
      ASSERT_NE(map, c.launch.tensor_maps.end()) << c.config.label();
      EXPECT_EQ(map->box_inner, chunk) << c.config.label();
      EXPECT_EQ(map->swizzle_bytes, chunk == 8 ? 0 : 2 * chunk) << c.config.label();
    }
  }
}

TEST(Sm90Space, PinnedVariantIsTheOnlyCandidateAndIgnoresPlanningRules) {
  ScratchDir dir;
  // A 2x2 cluster of 128x128 tiles on a 1x1 output breaks only planning rules (tile larger than
  // the matrix, cluster CTAs without a tile of their own).
  const auto r = run_tool("tune --compile-only --verbose --family sm90 --shapes " + dir.write("s.json", "[[1, 1, 8]]") +
                              " --pin BM=128,BN=128,STAGES=4,ACC_CHAINS=1 --pin CONSUMERS=2,PINGPONG=0,WG_KSPLIT=0,CLUSTER_M=2,"
                              "CLUSTER_N=2,EPI_TMA=0,PERSISTENT=0,SPLIT_K=1,STREAM_K=0,SWAP_AB=0,PDL=0,RASTER=1",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("1x1x8 tn f32: 1 candidates"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("BM=128 BN=128 CLUSTER_M=2 CLUSTER_N=2"), std::string::npos) << r.err;
}

TEST(Sm90Compile, EveryQuickstartCandidateCompilesForSm90a) {
  ScratchDir dir;
  const auto r = run_tool("tune --compile-only --arch sm_90a --family sm90 --shapes " +
                              source_path("configs/shapes/quickstart.json"),
                          dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(", 0 failed"), std::string::npos) << r.err;
}

// A winner tuned before a parameter existed (a database or bundle of then, its configuration
// without PDL) still compiles: the runtime and seeding rebuild such kernels.
TEST(Sm90Compile, ConfigurationsFromBeforePdlStillCompile) {
  ScratchDir dir;
  KernelCompiler compiler(dir.file("cache"));
  const KernelConfig config{"sm90", {{"BM", 64},        {"BN", 8},         {"STAGES", 11},     {"CONSUMERS", 1},
                                     {"ACC_CHAINS", 1}, {"PINGPONG", 0},   {"WG_KSPLIT", 0},   {"CLUSTER_M", 1},
                                     {"CLUSTER_N", 1},  {"EPI_TMA", 0},    {"PERSISTENT", 0},  {"SPLIT_K", 1},
                                     {"STREAM_K", 0},   {"SWAP_AB", 1},    {"KB_PAIR", 1},     {"SPLIT_DSMEM", 0},
                                     {"RASTER", 1}}};
  const KernelSource source = generate_source(sm90(), config, Layout::TN, Accum::F32);
  const CompiledKernel k = compiler.compile({source, compile_options(sm90(), "sm_90a"), "sm_90a"});
  EXPECT_TRUE(k.ok) << k.log;
}

TEST(Sm90Compile, SassHoldsHgmmaAndTmaAcrossTheFeatures) {
  ScratchDir dir;
  KernelCompiler compiler(dir.file("cache"));
  struct Sample {
    std::map<std::string, std::int64_t> params;
    Layout layout;
    Accum accum;
  };
  const std::vector<std::pair<Sample, bool>> samples = {  // with whether the SASS multicasts
      {{sample_params(128, 256, 4, 2, 1, 0, 0, 2, 1, 1, 1), Layout::TN, Accum::F32}, true},   // cooperative, B multicast, TMA store
      {{sample_params(64, 128, 8, 2, 2, 1, 0, 1, 2, 1, 1), Layout::NN, Accum::F32}, true},    // ping-pong, 2 chains, N-major B, A multicast
      {{sample_params(64, 96, 12, 1, 2, 0, 0, 1, 1, 0, 4), Layout::TN, Accum::F16}, false},   // decode tile, 2 chains, split-K, fp16
      {{sample_params(64, 48, 14, 2, 1, 0, 1, 2, 2, 0, 3), Layout::TN, Accum::F32}, true},    // WG_KSPLIT, 2x2 cluster, split-K
      {{sample_params(128, 128, 6, 2, 1, 0, 1, 1, 1, 1, 1), Layout::NN, Accum::F16}, false},  // WG_KSPLIT, fp16 exchange, TMA store
      {{sample_params(256, 128, 3, 2, 1, 0, 0, 1, 2, 2, 1), Layout::TN, Accum::F32}, true},   // whole-tile TMA store, A multicast
      {{sample_params(128, 256, 3, 2, 1, 0, 0, 1, 1, 2, 1, 1), Layout::TN, Accum::F32}, false},  // stream-K, whole-tile store
      {{sample_params(64, 64, 12, 2, 2, 0, 1, 1, 1, 0, 1, 1), Layout::NN, Accum::F16}, false},   // stream-K after WG_KSPLIT
      {{sample_params(128, 96, 6, 2, 1, 0, 0, 1, 4, 1, 1), Layout::TN, Accum::F32}, true},     // TMA store in 32-column chunks
      {{sample_params(64, 72, 8, 1, 1, 0, 0, 1, 1, 2, 1), Layout::TN, Accum::F32}, false},    // whole tile in 8-column chunks
      {{sample_params(192, 32, 7, 1, 2, 0, 0, 1, 2, 1, 1, 0, 1), Layout::TN, Accum::F32}, true},  // swapped, 192 rows, B multicast
      {{sample_params(64, 16, 16, 1, 1, 0, 0, 1, 1, 0, 4, 0, 1), Layout::TN, Accum::F16}, false},  // swapped, narrow, split-K, fp16
      {{sample_params(64, 8, 11, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1), Layout::TN, Accum::F32}, false},  // k-block pairs, narrow
      {{sample_params(64, 32, 8, 1, 2, 0, 0, 1, 2, 1, 1, 0, 1, 1), Layout::TN, Accum::F32}, true},   // pairs, swapped, 1x2 multicast
      {{sample_params(64, 64, 8, 1, 1, 0, 0, 1, 1, 0, 8, 0, 0, 1, 1), Layout::TN, Accum::F32}, false},  // split-K through DSMEM, pairs
      {{sample_params(128, 8, 3, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 2), Layout::TN, Accum::F32}, false},     // swapped, 4 atoms a box
      {{sample_params(64, 8, 3, 1, 1, 0, 0, 1, 1, 0, 2, 0, 1, 3, 1), Layout::TN, Accum::F32}, false},   // 8 atoms a box, DSMEM split
      {{sample_params(64, 32, 12, 2, 1, 0, 1, 1, 1, 0, 4, 0, 1, 0, 1), Layout::TN, Accum::F16}, false}, // DSMEM, swapped, WG_KSPLIT
      {{sample_params(64, 8, 10, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1), Layout::TN, Accum::F32}, false},  // PDL, swapped decode
      {{sample_params(128, 64, 6, 2, 1, 0, 0, 2, 1, 0, 2, 0, 0, 0, 0, 1), Layout::TN, Accum::F32}, true},   // PDL, multicast, split-K
      {{sample_params(128, 8, 10, 1, 1, 0, 0, 1, 1, 0, 2, 0, 1, 1, 1, 2), Layout::TN, Accum::F32}, false},  // + a ring to L2, 3-D
      {{sample_params(64, 128, 8, 1, 1, 0, 0, 2, 1, 0, 1, 0, 0, 0, 0, 3), Layout::NN, Accum::F32}, true},   // + 2 rings, N-major B
  };
  for (const auto& [s, multicast] : samples) {
    const KernelConfig config{"sm90", s.params};
    SCOPED_TRACE(config.label());
    const KernelSource source = generate_source(sm90(), config, s.layout, s.accum);
    const CompiledKernel k = compiler.compile({source, compile_options(sm90(), "sm_90a"), "sm_90a"});
    ASSERT_TRUE(k.ok) << k.log;
    EXPECT_EQ(k.report.rejection(), "") << k.log;
    const std::string sass = sass_of(k.cubin_path);
    if (sass.empty())
      GTEST_SKIP() << "no working cuobjdump -sass (scripts/setup.sh installs nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)";
    EXPECT_NE(sass.find("HGMMA"), std::string::npos);
    EXPECT_NE(sass.find("UTMALDG"), std::string::npos);
    EXPECT_EQ(sass.find("MULTICAST") != std::string::npos, multicast);
    EXPECT_EQ(sass.find("UTMASTG") != std::string::npos, s.params.at("EPI_TMA") >= 1);
    // 2, 4 or 8 k atoms a stage come in 3-D boxes (all at once, or one atom of a multicast share).
    EXPECT_EQ(sass.find("UTMALDG.3D") != std::string::npos, s.params.at("KB_PAIR") >= 1);
    EXPECT_EQ(sass.find("LDL"), std::string::npos) << "local memory in a kernel that must not spill";
    // Split-K slices of a cluster meet on the cluster barrier, not on a counter in global memory.
    const bool dsmem = s.params.at("SPLIT_DSMEM") == 1;
    EXPECT_EQ(sass.find("UCGABAR_ARV") != std::string::npos, dsmem || multicast);
    if (dsmem) {
      EXPECT_EQ(sass.find("ATOMG"), std::string::npos);
    }
    // PDL: griddepcontrol.wait (ACQBULK) and launch_dependents (PREEXIT), in PDL kernels only.
    const bool pdl = s.params.at("PDL") >= 1;
    EXPECT_EQ(sass.find("ACQBULK") != std::string::npos, pdl);
    EXPECT_EQ(sass.find("PREEXIT") != std::string::npos, pdl);
    // PDL = 2 or 3: the weights beyond the first ring are requested into the L2 alone (UTMAPF).
    EXPECT_EQ(sass.find("UTMAPF.L2") != std::string::npos, s.params.at("PDL") >= 2);
  }
}

// libcl2 runs a winner's bias twin (Epilogue::Bias) for a call with a bias: for each way the
// family writes C (direct or TMA stores, swapped, ping-pong, split-K through the workspace or
// DSMEM, stream-K, WG_KSPLIT, fp16 accumulators) it compiles without spilling, and its SASS reads
// the bias with 16-bit global loads, which the tuned kernel has none of.
TEST(Sm90Compile, BiasTwinsCompileForEveryWayOfWritingC) {
  ScratchDir dir;
  KernelCompiler compiler(dir.file("cache"));
  const std::vector<std::tuple<std::map<std::string, std::int64_t>, Layout, Accum>> samples = {
      {sample_params(128, 256, 4, 2, 1, 0, 0, 2, 1, 1, 1), Layout::TN, Accum::F32},        // cooperative, TMA store
      {sample_params(64, 128, 8, 2, 2, 1, 0, 1, 2, 1, 1), Layout::NN, Accum::F32},         // ping-pong
      {sample_params(64, 96, 12, 1, 2, 0, 0, 1, 1, 0, 4), Layout::TN, Accum::F16},         // split-K, fp16, direct
      {sample_params(64, 48, 14, 2, 1, 0, 1, 2, 2, 0, 3), Layout::TN, Accum::F32},         // WG_KSPLIT, split-K
      {sample_params(128, 256, 3, 2, 1, 0, 0, 1, 1, 2, 1, 1), Layout::TN, Accum::F32},     // stream-K
      {sample_params(64, 64, 12, 2, 2, 0, 1, 1, 1, 0, 1, 1), Layout::NN, Accum::F16},      // stream-K after WG_KSPLIT
      {sample_params(192, 32, 7, 1, 2, 0, 0, 1, 2, 1, 1, 0, 1), Layout::TN, Accum::F32},   // swapped, TMA store
      {sample_params(64, 16, 16, 1, 1, 0, 0, 1, 1, 0, 4, 0, 1), Layout::TN, Accum::F16},   // swapped, split-K, fp16
      {sample_params(64, 64, 8, 1, 1, 0, 0, 1, 1, 0, 8, 0, 0, 1, 1), Layout::TN, Accum::F32},  // split-K through DSMEM
  };
  for (const auto& [params, layout, accum] : samples) {
    const KernelConfig config{"sm90", params};
    SCOPED_TRACE(config.label());
    const KernelSource plain = generate_source(sm90(), config, layout, accum);
    const KernelSource twin = generate_source(sm90(), config, layout, accum, Epilogue::Bias);
    EXPECT_NE(twin.hash, plain.hash);
    const CompiledKernel k = compiler.compile({plain, compile_options(sm90(), "sm_90a"), "sm_90a"});
    const CompiledKernel b = compiler.compile({twin, compile_options(sm90(), "sm_90a"), "sm_90a"});
    ASSERT_TRUE(k.ok) << k.log;
    ASSERT_TRUE(b.ok) << b.log;
    EXPECT_EQ(b.report.rejection(), "") << b.log;
    const std::string plain_sass = sass_of(k.cubin_path), twin_sass = sass_of(b.cubin_path);
    if (twin_sass.empty())
      GTEST_SKIP() << "no working cuobjdump -sass (scripts/setup.sh installs nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)";
    EXPECT_EQ(plain_sass.find("LDG.E.U16"), std::string::npos);
    EXPECT_NE(twin_sass.find("LDG.E.U16"), std::string::npos);
    EXPECT_EQ(twin_sass.find("LDL"), std::string::npos) << "local memory in a kernel that must not spill";
  }
}

// scripts/sass_identity.py, which shows a template change left kernels' SASS alone: a build
// compared with itself is identical on every configuration it draws (one winner of an export and
// the feature samples), and the script exits 0.
TEST(Sm90Compile, SassIdentityScriptFindsABuildIdenticalToItself) {
  ScratchDir dir;
  if (run_command(source_path("scripts/find-cuobjdump.sh"), dir).out.empty()) GTEST_SKIP() << "no cuobjdump";
  const auto r = run_command("python3 " + source_path("scripts/sass_identity.py") + " " + tool_binary() + " " +
                                 tool_binary() + " " + source_path("db/results/h200-large.json") + " --per-table 1",
                             dir);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("5 of 5 configurations compiled by both builds have identical SASS"), std::string::npos) << r.out;
}

// Its input errors: one line naming the input and the fix, exit status 1, before any compile.
TEST(Sm90Compile, SassIdentityScriptNamesABadInput) {
  ScratchDir dir;
  const std::string script = "python3 " + source_path("scripts/sass_identity.py") + " ";
  auto r = run_command(script + dir.file("missing-cli") + " " + tool_binary(), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing-cli is not an executable; pass two builds of cuda-l2-tune"), std::string::npos) << r.err;
  r = run_command(script + tool_binary() + " " + tool_binary() + " " + dir.write("x.json", "[]"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("x.json: not an export"), std::string::npos) << r.err;
}
