// Enumeration of the sm80 family's space (configs/spaces/sm80.json): every candidate obeys the
// kernel contract's alignment, shared-memory and workspace rules, counts stay in the range the
// driver can afford to time, and the order is deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <set>

#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"

using namespace cl2;

namespace {

const FamilySpec& sm80() { return builtin_families().at("sm80"); }

Problem problem(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout,
                Accum accum = Accum::F32) {
  return {{m, n, k}, layout, accum};
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

const std::vector<Problem>& problems() {
  static const std::vector<Problem> list = {
      problem(64, 64, 64, Layout::TN),
      problem(4096, 4096, 4096, Layout::TN),
      problem(4096, 4096, 4096, Layout::NN, Accum::F16),
      problem(3000, 4096, 4096, Layout::TN),
      problem(4095, 4097, 4095, Layout::NN),  // odd K and N: only element-wise loads apply
      problem(4096, 4097, 4096, Layout::TN),  // odd N is fine for TN
      problem(64, 4096, 12288, Layout::TN),   // few tiles, long K: split-K territory
      problem(1, 1, 1, Layout::NN),
  };
  return list;
}

const std::vector<std::string>& archs() {
  static const std::vector<std::string> list = {"sm_80", "sm_90a"};
  return list;
}

bool aligned_shape(const Problem& pr) {
  return pr.shape.k % 8 == 0 && (pr.layout == Layout::TN || pr.shape.n % 8 == 0);
}

}  // namespace

TEST(Sm80Space, ParsesWithRuntimeSplitKAndRaster) {
  const FamilySpec& f = sm80();
  EXPECT_EQ(f.min_cc, 80);
  EXPECT_EQ(f.max_cc, 90);
  EXPECT_EQ(f.template_path, "templates/sm80_hgemm.cuh");
  EXPECT_EQ(f.runtime_params.at("SPLIT_K"), "split_k");
  EXPECT_EQ(f.runtime_params.at("RASTER"), "raster_group");
  for (const char* name : {"BM", "BN", "BK", "WARPS_M", "WARPS_N", "STAGES", "PREFETCH", "REG_DB",
                           "ALIGN8", "SPLIT_K", "RASTER"})
    EXPECT_TRUE(f.params.count(name)) << name;
  EXPECT_FALSE(f.supports_cc(75));
  EXPECT_TRUE(f.supports_cc(80));
  EXPECT_TRUE(f.supports_cc(90));
}

TEST(Sm80Space, EveryCandidateKeepsTheContract) {
  for (const auto& arch : archs()) {
    const DeviceLimits device = limits_for_arch(arch);
    for (const Problem& pr : problems()) {
      SCOPED_TRACE(arch + " " + pr.text());
      const auto found = enumerate_family(sm80(), pr, device);
      ASSERT_FALSE(found.empty());
      EXPECT_LE(found.size(), 4000u);
      std::cout << "[ sm80     ] " << arch << " " << pr.text() << ": " << found.size()
                << " candidates, best " << found.front().config.label() << " ("
                << found.front().cost_us << " us)\n";
      const std::int64_t m = pr.shape.m, n = pr.shape.n, k = pr.shape.k;
      double previous_cost = 0;
      for (const Candidate& c : found) {
        SCOPED_TRACE(c.config.label());
        const auto& q = c.config.params;
        const std::int64_t bm = q.at("BM"), bn = q.at("BN"), bk = q.at("BK");
        const std::int64_t split = q.at("SPLIT_K"), stages = q.at("STAGES");
        const std::int64_t tiles = ceil_div(m, bm) * ceil_div(n, bn);
        // Alignment: 16-byte copies exactly where the shape allows them.
        EXPECT_EQ(q.at("ALIGN8") == 1, aligned_shape(pr));
        // Shared memory: the ring plus the split-K flag, within the opt-in limit.
        EXPECT_EQ(c.launch.smem_bytes, stages * (bm + bn) * bk * 2 + 16);
        EXPECT_LE(c.launch.smem_bytes, device.smem_optin);
        // Workspace exactly when split-K reduces through it, and of the documented size.
        if (split > 1)
          EXPECT_EQ(c.launch.workspace_bytes,
                    (tiles * 4 + 255) / 256 * 256 + split * tiles * bm * bn * 4);
        else
          EXPECT_EQ(c.launch.workspace_bytes, 0);
        EXPECT_LE(split, ceil_div(k, bk));
        // Launch geometry: 1-D tile grid in x, slices in z, 2..8 warps.
        EXPECT_EQ(c.launch.threads, 32 * q.at("WARPS_M") * q.at("WARPS_N"));
        EXPECT_GE(c.launch.threads, 64);
        EXPECT_LE(c.launch.threads, 256);
        EXPECT_EQ(c.launch.grid[0], tiles);
        EXPECT_EQ(c.launch.grid[1], 1);
        EXPECT_EQ(c.launch.grid[2], split);
        EXPECT_EQ(c.launch.runtime.at("split_k"), split);
        EXPECT_EQ(c.launch.runtime.at("raster_group"), q.at("RASTER"));
        EXPECT_LE(q.at("PREFETCH"), stages - 1);
        EXPECT_EQ((bm / q.at("WARPS_M")) % 16, 0);
        EXPECT_EQ((bn / q.at("WARPS_N")) % 16, 0);
        // Cheapest first.
        EXPECT_TRUE(std::isfinite(c.cost_us));
        EXPECT_GT(c.cost_us, 0);
        EXPECT_GE(c.cost_us, previous_cost);
        previous_cost = c.cost_us;
      }
    }
  }
}

TEST(Sm80Space, ShapesSelectTheRightVariants) {
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const DeviceLimits a100 = limits_for_arch("sm_80");
  auto any = [](const std::vector<Candidate>& list, auto pred) {
    for (const auto& c : list)
      if (pred(c.config.params)) return true;
    return false;
  };
  using Params = std::map<std::string, std::int64_t>;

  // Many tiles: no split-K; large problems favour large tiles and offer grouped rasterization.
  for (const DeviceLimits* d : {&h200, &a100}) {
    const auto big = enumerate_family(sm80(), problem(4096, 4096, 4096, Layout::TN), *d);
    EXPECT_FALSE(any(big, [](const Params& q) { return q.at("SPLIT_K") > 1; }));
    EXPECT_TRUE(any(big, [](const Params& q) { return q.at("RASTER") == 8; }));
    EXPECT_GE(big.front().config.at("BM") * big.front().config.at("BN"), 128 * 128);
  }
  // Few tiles and a long K: split-K candidates exist (and need the workspace).
  const auto skinny = enumerate_family(sm80(), problem(64, 4096, 12288, Layout::TN), h200);
  EXPECT_TRUE(any(skinny, [](const Params& q) { return q.at("SPLIT_K") >= 4; }));
  // A tiny problem: one tile, no grouped rasterization, no tile beyond twice the problem.
  const auto tiny = enumerate_family(sm80(), problem(64, 64, 64, Layout::TN), h200);
  EXPECT_FALSE(any(tiny, [](const Params& q) { return q.at("RASTER") != 1; }));
  EXPECT_FALSE(any(tiny, [](const Params& q) { return q.at("BM") > 64 || q.at("BN") > 64; }));
  // The A100's 163 KB opt-in removes rings that fit the H200's 227 KB.
  const auto on_a100 = enumerate_family(sm80(), problem(4096, 4096, 4096, Layout::TN), a100);
  const auto on_h200 = enumerate_family(sm80(), problem(4096, 4096, 4096, Layout::TN), h200);
  EXPECT_LT(on_a100.size(), on_h200.size());
}

TEST(Sm80Space, OrderIsDeterministic) {
  const DeviceLimits device = limits_for_arch("sm_90a");
  const Problem pr = problem(3000, 4096, 4096, Layout::TN);
  const auto first = enumerate_family(sm80(), pr, device);
  const auto second = enumerate_family(sm80(), pr, device);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].config.to_json(), second[i].config.to_json()) << i;
    EXPECT_EQ(first[i].cost_us, second[i].cost_us) << i;
  }
  std::set<std::string> unique;
  for (const auto& c : first) unique.insert(c.config.to_json());
  EXPECT_EQ(unique.size(), first.size());
}

TEST(Sm80Space, UnsupportedDevicesGetNothing) {
  DeviceLimits old = limits_for_arch("sm_80");
  old.cc = 75;
  EXPECT_TRUE(enumerate_family(sm80(), problem(256, 256, 256, Layout::TN), old).empty());
}
