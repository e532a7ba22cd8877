// The cost model's calibration: factors in a space file scale its estimate, `calibrate` fits them
// to measured trials by least squares on log time within each shape, and judges a model by how it
// ranks each shape's measured variants.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include "core/errors.hpp"
#include "search/calibration_fit.hpp"
#include "search/candidates.hpp"
#include "search/cost_model.hpp"
#include "search/family_spec.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

// Samples whose log times are exactly log_base + w . features + a per-group offset (which a fit
// must ignore: only differences within a group rank anything). Features vary within groups.
std::vector<CalibrationSample> exact_samples(const std::vector<double>& w) {
  std::vector<CalibrationSample> samples;
  for (int g = 0; g < 12; ++g)
    for (int v = 0; v < 8; ++v) {
      CalibrationSample s;
      s.shape = s.group = "shape" + std::to_string(g);
      s.log_base_cost = 0.1 * ((v * 7 + g * 3) % 11) + 0.001 * v;  // no ties: ranks are exact
      s.features = {(v & 1) != 0, (v & 2) != 0, ((v + g) % 3) == 0};
      s.log_time = s.log_base_cost + 5.0 * g;
      for (std::size_t f = 0; f < w.size(); ++f)
        if (s.features[f]) s.log_time += w[f];
      samples.push_back(s);
    }
  return samples;
}

// `shapes` groups of `variants` samples each, every one filled in by fill(shape, variant, sample).
std::vector<CalibrationSample> shape_samples(int shapes, int variants,
                                             const std::function<void(int, int, CalibrationSample&)>& fill) {
  std::vector<CalibrationSample> samples;
  for (int shape = 0; shape < shapes; ++shape)
    for (int v = 0; v < variants; ++v) {
      CalibrationSample s;
      s.shape = s.group = "shape" + std::to_string(shape);
      fill(shape, v, s);
      samples.push_back(s);
    }
  return samples;
}

const char* kCalibratedSpace = R"json({
  "family": "toy", "template": "toy.cuh", "min_cc": 80, "max_cc": 90,
  "params": {"TILE": [16, 32, 64]},
  "constraints": [],
  "launch": {"threads": "128", "grid": ["1", "1", "1"], "smem_bytes": "0"},
  "calibration": {"factors": [["TILE == 16", 4.0], ["TILE >= 32", 0.5]]},
  "cost_us": "1000.0 / TILE"
})json";

}  // namespace

TEST(Calibration, FitRecoversTheFactorsThatMadeTheTimes) {
  const std::vector<double> truth = {0.3, -0.2, 0.1};
  const auto samples = exact_samples(truth);
  const auto fitted = fit_log_factors(samples, 3, 0.0);
  ASSERT_EQ(fitted.size(), 3u);
  for (std::size_t f = 0; f < 3; ++f) EXPECT_NEAR(fitted[f], truth[f], 1e-9);
  const RankingQuality q = ranking_quality(samples, fitted);
  EXPECT_EQ(q.groups, 12u);
  EXPECT_NEAR(q.mean_spearman, 1.0, 1e-12);
  EXPECT_NEAR(q.top1_regret, 1.0, 1e-12);
  const RankingQuality held_out = cross_validated_quality(samples, 3, 0.0);
  EXPECT_EQ(held_out.groups, 12u);
  EXPECT_NEAR(held_out.mean_spearman, 1.0, 1e-9);
}

TEST(Calibration, UncalibratedModelIsJudgedByItsRankingAlone) {
  const auto samples = exact_samples({1.0, 0.0, 0.0});
  const RankingQuality q = ranking_quality(samples, {0.0, 0.0, 0.0});
  EXPECT_LT(q.mean_spearman, 0.9);  // the first feature's factor e is unknown to it
  EXPECT_GT(q.top1_regret, 1.0);
}

TEST(Calibration, FirstChoicesAreJudgedByTheBestAmongTheModelsFirst24) {
  // Two shapes of 40 variants, each 1% slower than the model's order says, but for one 10% faster
  // than all: the model puts it 10th on one shape (inside its first 24), 30th on the other.
  const auto samples = shape_samples(2, 40, [](int shape, int v, CalibrationSample& s) {
    s.log_base_cost = 0.01 * v;
    s.log_time = (v == (shape == 0 ? 9 : 29)) ? std::log(0.9) : 0.01 * v;
  });
  const RankingQuality q = ranking_quality(samples, {});
  EXPECT_EQ(q.groups, 2u);
  EXPECT_EQ(q.first_within_2pct, 1u);
  EXPECT_NEAR(q.first_regret, std::sqrt(1.0 / 0.9), 1e-9);  // found on one, 1/0.9 off on the other
  EXPECT_NEAR(q.top1_regret, 1.0 / 0.9, 1e-9);                // the model's first is never the best
  // The one missed, with the place of its fastest variant in the model's order.
  EXPECT_EQ(q.missed, (std::vector<std::pair<std::string, std::size_t>>{{"shape1", 30}}));
  // Judged by its first 32 (what a race of 8 times briefly), the model holds it on both shapes.
  const RankingQuality wider = ranking_quality(samples, {}, 32);
  EXPECT_EQ(wider.first_within_2pct, 2u);
  EXPECT_TRUE(wider.missed.empty());
  EXPECT_NEAR(wider.first_regret, 1.0, 1e-9);
}

TEST(Calibration, TheFitFollowsTheFastVariantsWhereTheSlowOnesDisagree) {
  // Per shape: four fast variants, whose feature makes them 10% faster, and twenty slow ones
  // (2-3x the best), whose feature makes them 30% slower. Weighing every variant the same, the
  // fit says the feature costs time; planning keeps the fast ones, so it must say it saves time.
  const auto samples = shape_samples(6, 24, [](int, int v, CalibrationSample& s) {
    const bool fast = v < 4, with = v % 2 == 0;
    s.features = {with};
    s.log_time = (fast ? 0.0 : std::log(2.0 + 0.05 * v)) + (with ? std::log(fast ? 0.9 : 1.3) : 0.0);
    s.log_base_cost = s.log_time - (with ? std::log(fast ? 0.9 : 1.3) : 0.0);
  });
  const auto fitted = fit_log_factors(samples, 1, 0.0);
  EXPECT_LT(std::exp(fitted[0]), 0.95) << "the factor the fast variants show is 0.9";
}

TEST(Calibration, RidgeLeavesAFactorTheDataCannotSeeAtOne) {
  auto samples = exact_samples({0.3, -0.2, 0.0});
  for (auto& s : samples) s.features.push_back(s.group == "shape0");  // constant within every group
  const auto fitted = fit_log_factors(samples, 4, 1.0);
  EXPECT_NEAR(fitted[3], 0.0, 1e-12);
  EXPECT_GT(fitted[0], 0.2);  // shrunk a little towards 0, not away
  EXPECT_LT(fitted[0], 0.3);
}

TEST(Calibration, SpaceFileFactorsScaleTheModelCost) {
  const FamilySpec family = parse_family_spec(kCalibratedSpace, "toy.json", "// template\n", "toy.cuh");
  ASSERT_EQ(family.calibration.size(), 2u);
  EXPECT_EQ(family.calibration[0].text, "TILE == 16");
  const Problem problem{{64, 64, 64}, Layout::TN, Accum::F32};
  const auto candidates = enumerate_family(family, problem, limits_for_arch("sm_90a"));
  ASSERT_EQ(candidates.size(), 3u);
  // 1000/64 * 0.5, 1000/32 * 0.5, 1000/16 * 4: the factors, not the raw cost, order them.
  EXPECT_DOUBLE_EQ(candidates[0].cost_us, 7.8125);
  EXPECT_DOUBLE_EQ(candidates[1].cost_us, 15.625);
  EXPECT_DOUBLE_EQ(candidates[2].cost_us, 250.0);
  const ExprVariables vars = config_variables(family, candidates[2].config, problem, limits_for_arch("sm_90a"));
  EXPECT_DOUBLE_EQ(uncalibrated_cost(family, vars), 62.5);
  EXPECT_EQ(calibration_features(family, vars), (std::vector<bool>{true, false}));
}

TEST(Calibration, FloorIsNotStretchedByFactorsAndTheLesserBoundAddsAShare) {
  std::string text = kCalibratedSpace;
  const std::string cost = R"("cost_us": "1000.0 / TILE")";
  text.replace(text.find(cost), cost.size(), cost + R"(, "floor_us": "L2_COLD ? 40.0 : 0.0")");
  const FamilySpec family = parse_family_spec(text, "toy.json", "// template\n", "toy.cuh");
  const auto limits = limits_for_arch("sm_90a");
  const Problem warm{{64, 64, 64}, Layout::TN, Accum::F32, L2Policy::Warm};
  Problem cold = warm;
  cold.l2 = L2Policy::Rotate;
  // Warm: no floor, the calibrated costs 7.8125, 15.625, 250 (as above).
  EXPECT_DOUBLE_EQ(enumerate_family(family, warm, limits)[0].cost_us, 7.8125);
  // Rotate: 40 us from DRAM bounds the two cheap tiles, each plus 5% of its calibrated cost, so the
  // one that computes less still comes first; the factor 4 of TILE 16 stretches cost_us, not 40.
  const auto candidates = enumerate_family(family, cold, limits);
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_DOUBLE_EQ(candidates[0].cost_us, 40.0 + 0.05 * 7.8125);
  EXPECT_DOUBLE_EQ(candidates[1].cost_us, 40.0 + 0.05 * 15.625);
  EXPECT_DOUBLE_EQ(candidates[2].cost_us, 250.0 + 0.05 * 40.0);
  const ExprVariables vars = config_variables(family, candidates[0].config, cold, limits);
  EXPECT_TRUE(floor_bound(family, vars));  // 40 above 1000/64: calibrate leaves such a trial out
  EXPECT_FALSE(floor_bound(family, config_variables(family, candidates[0].config, warm, limits)));
}

TEST(Calibration, NonPositiveFactorIsRejectedNamingTheRule) {
  const std::string text = kCalibratedSpace;
  const std::size_t at = text.find("0.5");
  const std::string space = text.substr(0, at) + "0" + text.substr(at + 3);
  try {
    parse_family_spec(space, "toy.json", "", "toy.cuh");
    FAIL() << "a factor of 0 was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("TILE >= 32"), std::string::npos) << e.what();
  }
}

TEST(Calibration, CommandFitsTrialsOfATunedDatabase) {
  ScratchDir dir;
  std::filesystem::copy_file(source_path("tests/data/spaces/naive_gemm.cuh"), dir.file("naive_gemm.cuh"));
  const std::string space = dir.write("naive_calibrated.json", R"json({
  "family": "naive_calibrated", "template": "naive_gemm.cuh", "min_cc": 70, "max_cc": 120,
  "params": {"FAULT": [0], "TILE": [16], "VARIANT": [1, 2, 3, 4, 5, 6]},
  "constraints": [],
  "launch": {"threads": "256", "grid": ["ceil_div(N, TILE)", "ceil_div(M, TILE)", "1"], "smem_bytes": "0"},
  "calibration": {"factors": [["VARIANT <= 3", 1.0]]},
  "cost_us": "VARIANT"
})json");
  const std::string db = dir.file("t.sqlite");
  const std::string family = " --space-file " + space + " --family naive_calibrated";
  const auto tuned = run_tool("tune --fake-gpu --max-candidates 0 --shapes " +
                                  dir.write("shapes.json", "[[64, 64, 64], [128, 64, 64]]") + " --db " + db + family,
                              dir);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const auto r = run_tool("calibrate --db " + db + family, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("12 verified trials, 2 shapes (per database)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("VARIANT <= 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("with the fitted factors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[\"VARIANT <= 3\", "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first 24"), std::string::npos) << r.out;  // tune's default plan
  const auto wider = run_tool("calibrate --first 4 --db " + db + family, dir);
  ASSERT_EQ(wider.status, 0) << wider.err;
  EXPECT_NE(wider.out.find("first 4"), std::string::npos) << wider.out;
  EXPECT_NE(wider.out.find("Not within 2% in the first 4 (the place of the fastest"), std::string::npos) << wider.out;
  EXPECT_EQ(run_tool("calibrate --first 0 --db " + db + family, dir).status, 2);

  // The family's scale too: the file has none yet; the fit prints one in the file's syntax.
  EXPECT_NE(r.out.find("in the space file none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"scale\": "), std::string::npos) << r.out;
  const auto nothing = run_tool("calibrate --db " + db + family + " --device NoSuchGpu", dir);
  EXPECT_EQ(nothing.status, 2);
  EXPECT_NE(nothing.err.find("no verified naive_calibrated trials"), std::string::npos) << nothing.err;

  // The family has since gained a parameter its model reads: the older trials lack it, so they are
  // no samples of it (they made calibrate fail with an internal error on an unknown name).
  std::string grown = read_all(space);
  grown.replace(grown.find("\"params\": {"), 11, "\"params\": {\"EXTRA\": [0], ");
  grown.replace(grown.find("\"cost_us\": \"VARIANT\""), 20, "\"cost_us\": \"VARIANT + EXTRA\"");
  dir.write("naive_calibrated.json", grown);
  const auto older = run_tool("calibrate --db " + db + family, dir);
  EXPECT_EQ(older.status, 2) << older.err;
  EXPECT_NE(older.err.find("no verified naive_calibrated trials"), std::string::npos) << older.err;

  // Unless the family says what a configuration without it has (the value its template compiles
  // where CL2_EXTRA is undefined): then they are samples again.
  grown.replace(grown.find("\"cost_us\": "), 0, "\"absent\": {\"EXTRA\": 0}, ");
  dir.write("naive_calibrated.json", grown);
  const auto absent = run_tool("calibrate --db " + db + family, dir);
  ASSERT_EQ(absent.status, 0) << absent.err;
  EXPECT_NE(absent.out.find("12 verified trials, 2 shapes (per database)"), std::string::npos) << absent.out;
  const std::string absent_zero = "{\"EXTRA\": 0}";
  grown.replace(grown.find(absent_zero), absent_zero.size(), "{\"EXTRA\": 5}");
  dir.write("naive_calibrated.json", grown);
  const auto unlisted = run_tool("calibrate --db " + db + family, dir);
  EXPECT_EQ(unlisted.status, 2);
  EXPECT_NE(unlisted.err.find("absent EXTRA=5 is not a value of the family's parameters"), std::string::npos)
      << unlisted.err;
}

TEST(Calibration, FitScaleIsWhatTheFactorsLeaveOfTheMeasuredTime) {
  const std::vector<double> truth = {0.3, -0.2, 0.1};
  // exact_samples: log time = log base + factors + 5 * group, groups 0..11: a mean of 27.5.
  EXPECT_NEAR(fit_log_scale(exact_samples(truth), truth), 27.5, 1e-9);
  EXPECT_EQ(fit_log_scale({}, truth), 0.0);
}

namespace {

std::string scaled_space(const std::string& name, const std::string& cost, const std::string& scale) {
  return R"({"family": ")" + name + R"(", "template": "toy.cuh", "min_cc": 80, "max_cc": 90,
    "params": {"V": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}, "diversity": ["V"],
    "constraints": [], "launch": {"threads": "128", "grid": ["1", "1", "1"], "smem_bytes": "0"},)" +
         (scale.empty() ? "" : R"("calibration": {"scale": )" + scale + "},") + R"("cost_us": ")" + cost + R"("})";
}

std::map<std::string, int> slots_by_family(const std::string& cheap_scale, const std::string& dear_scale) {
  const FamilySpec cheap = parse_family_spec(scaled_space("cheap", "V", cheap_scale), "c.json", "", "toy.cuh");
  const FamilySpec dear = parse_family_spec(scaled_space("dear", "100 + V", dear_scale), "d.json", "", "toy.cuh");
  std::map<std::string, int> slots;
  for (const auto& c : plan_candidates({&cheap, &dear}, {{64, 64, 64}, Layout::TN, Accum::F32},
                                       limits_for_arch("sm_90a"), 12))
    ++slots[c.family->name];
  return slots;
}

}  // namespace

// Each family is guaranteed a quarter of the slots; the scales decide the rest, in the common unit
// they make.
TEST(Calibration, ScalesPutFamiliesCostsInOneUnitForTheSlots) {
  EXPECT_EQ(slots_by_family("", ""), (std::map<std::string, int>{{"cheap", 9}, {"dear", 3}}));
  EXPECT_EQ(slots_by_family("1.0", "1.0"), (std::map<std::string, int>{{"cheap", 9}, {"dear", 3}}));
  // "dear" measured 100x faster than its estimate: now its variants are the cheap ones.
  EXPECT_EQ(slots_by_family("1.0", "0.01"), (std::map<std::string, int>{{"cheap", 3}, {"dear", 9}}));
  try {
    parse_family_spec(scaled_space("bad", "V", "-1"), "bad.json", "", "toy.cuh");
    FAIL() << "a negative scale was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("calibration scale must be positive"), std::string::npos) << e.what();
  }
}
