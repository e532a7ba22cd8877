// Space files and the planner on a tiny made-up family: parsing, defines versus derived values,
// constraint pruning, cost ordering, diversity in a short list, deterministic code generation.
#include <gtest/gtest.h>

#include "codegen/codegen.hpp"
#include "core/errors.hpp"
#include "search/candidates.hpp"
#include "search/family_spec.hpp"

using namespace cl2;

namespace {

const char* kSpace = R"json({
  "family": "toy", "template": "toy.cuh", "min_cc": 80, "max_cc": 90,
  "params": {"TILE": [16, 32, 64], "DEPTH": [1, 2], "SPLIT": [1, 2]},
  "runtime_params": {"SPLIT": "split_k"},
  "diversity": ["TILE"],
  "defines": [["TILE2", "TILE * 2"]],
  "derived": [["TILES", "ceil_div(M, TILE) * ceil_div(N, TILE)"]],
  "constraints": [{"rule": "TILE <= M", "why": "tile fits"}, "TILES * SPLIT <= 64"],
  "launch": {"threads": "TILE2", "grid": ["TILES", "1", "SPLIT"], "smem_bytes": "TILE * 64"},
  "cost_us": "1000.0 / TILE + DEPTH + SPLIT"
})json";

FamilySpec toy() { return parse_family_spec(kSpace, "toy.json", "// template\n", "toy.cuh"); }

const DeviceLimits kDevice = limits_for_arch("sm_90a");

}  // namespace

TEST(FamilySpec, ConstraintsPruneAndCostOrders) {
  const FamilySpec family = toy();
  const Problem problem{{64, 64, 64}, Layout::TN, Accum::F32};
  std::map<std::string, std::int64_t> rejections;
  const auto candidates = enumerate_family(family, problem, kDevice, &rejections);
  // TILE 16: 16 tiles, SPLIT 2 -> 32 <= 64; everything fits M = 64: 3 * 2 * 2 = 12.
  ASSERT_EQ(candidates.size(), 12u);
  for (std::size_t i = 1; i < candidates.size(); ++i) EXPECT_LE(candidates[i - 1].cost_us, candidates[i].cost_us);
  EXPECT_EQ(candidates.front().config.at("TILE"), 64);
  EXPECT_EQ(candidates.front().launch.threads, 128);           // a define in the geometry
  EXPECT_EQ(candidates.front().launch.grid[0], 1);              // a derived value in the geometry
  EXPECT_EQ(candidates.front().launch.runtime.at("split_k"), 1);
  const auto small = enumerate_family(family, {{20, 20, 64}, Layout::TN, Accum::F32}, kDevice, &rejections);
  for (const auto& c : small) EXPECT_LE(c.config.at("TILE"), 20);
  EXPECT_GT(rejections["tile fits"], 0);
}

TEST(FamilySpec, ShortListsTakeEachDistinctTileFirst) {
  const FamilySpec family = toy();
  const auto plan = plan_candidates({&family}, {{64, 64, 64}, Layout::TN, Accum::F32}, kDevice, 3);
  ASSERT_EQ(plan.size(), 3u);
  std::set<std::int64_t> tiles;
  for (const auto& c : plan) tiles.insert(c.config.at("TILE"));
  EXPECT_EQ(tiles.size(), 3u) << "three distinct tiles before a second depth of any";
}

TEST(FamilySpec, NoApplicableVariantNamesTheRule) {
  const FamilySpec family = toy();
  try {
    plan_candidates({&family}, {{8, 8, 8}, Layout::TN, Accum::F32}, kDevice, 4);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("tile fits"), std::string::npos) << e.what();
  }
}

TEST(FamilySpec, SourceHasDefinesNotDerivedOrRuntimeAndIsDeterministic) {
  const FamilySpec family = toy();
  const KernelConfig a{"toy", {{"TILE", 32}, {"DEPTH", 2}, {"SPLIT", 1}}};
  const KernelConfig b{"toy", {{"TILE", 32}, {"DEPTH", 2}, {"SPLIT", 2}}};
  const KernelSource sa = generate_source(family, a, Layout::NN, Accum::F16);
  EXPECT_NE(sa.text.find("#define CL2_TILE2 64"), std::string::npos);
  EXPECT_NE(sa.text.find("#define CL2_LAYOUT_TN 0"), std::string::npos);
  EXPECT_NE(sa.text.find("#define CL2_ACCUM_F16 1"), std::string::npos);
  EXPECT_EQ(sa.text.find("CL2_TILES"), std::string::npos);
  EXPECT_EQ(sa.text.find("CL2_SPLIT "), std::string::npos);
  EXPECT_EQ(sa.hash, generate_source(family, a, Layout::NN, Accum::F16).hash);
  EXPECT_EQ(sa.hash, generate_source(family, b, Layout::NN, Accum::F16).hash) << "runtime params share a binary";
  EXPECT_NE(sa.hash, generate_source(family, a, Layout::TN, Accum::F16).hash);
}

TEST(FamilySpec, BadSpaceFilesAreNamed) {
  EXPECT_THROW(parse_family_spec("{", "bad.json", "", "t"), UserError);
  std::string unknown_diversity = kSpace;
  unknown_diversity.replace(unknown_diversity.find("\"diversity\": [\"TILE\"]"), 21, "\"diversity\": [\"NOPE\"]");
  EXPECT_THROW(parse_family_spec(unknown_diversity, "bad.json", "", "t"), UserError);
  std::string bad_rule = kSpace;
  bad_rule.replace(bad_rule.find("TILE <= M"), 9, "TILE <= (M");
  EXPECT_THROW(parse_family_spec(bad_rule, "bad.json", "", "t"), UserError);
}

TEST(FamilySpec, PinsFixListedValuesAndNameTheListForOthers) {
  const auto pinned = pin_family(toy(), {{"TILE", 32}, {"NOT_A_PARAM", 1}});
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->params.at("TILE"), std::vector<std::int64_t>{32});
  EXPECT_EQ(pinned->params.at("DEPTH").size(), 2u);
  std::string mismatch;
  EXPECT_FALSE(pin_family(toy(), {{"TILE", 48}}, &mismatch).has_value())
      << "a value the family does not list must not be pinned";
  EXPECT_EQ(mismatch, "family toy takes TILE in {16, 32, 64}");
}

// A twin (the space file's "twin") is planned right after each of the family's first `first`
// candidates, the same variant with the twin value, where the correctness rules allow it: the
// planning rules, which here keep DEPTH at 2, do not stop it; a pinned family plans none.
TEST(FamilySpec, TwinsFollowTheFirstCandidatesWhereTheRulesAllow) {
  std::string text = kSpace;
  text.replace(text.find("\"constraints\": ["), 16,
               "\"twin\": {\"param\": \"DEPTH\", \"value\": 1, \"first\": 4}, \"constraints\": ["
               "{\"rule\": \"DEPTH == 2\", \"planning\": true}, {\"rule\": \"DEPTH == 2 || TILE >= 32\"}, ");
  const FamilySpec family = parse_family_spec(text, "toy.json", "", "t");
  const auto plan = plan_candidates({&family}, {{64, 64, 64}, Layout::NN, Accum::F32}, kDevice, 4);
  std::vector<std::string> labels;
  for (const auto& c : plan) labels.push_back(c.config.label());
  // The plan of 4 (DEPTH=2 only), cheapest first: TILE 64 SPLIT 1, TILE 64 SPLIT 2, TILE 32 SPLIT 1,
  // TILE 16 SPLIT 1; twins for the first three (TILE >= 32 allows DEPTH=1), none for the fourth.
  const std::vector<std::string> expected = {
      "toy DEPTH=2 SPLIT=1 TILE=64", "toy DEPTH=1 SPLIT=1 TILE=64", "toy DEPTH=2 SPLIT=2 TILE=64",
      "toy DEPTH=1 SPLIT=2 TILE=64", "toy DEPTH=2 SPLIT=1 TILE=32", "toy DEPTH=1 SPLIT=1 TILE=32",
      "toy DEPTH=2 SPLIT=1 TILE=16"};
  EXPECT_EQ(labels, expected);
  const auto pinned = pin_family(family, {{"TILE", 64}});
  ASSERT_TRUE(pinned.has_value());
  EXPECT_FALSE(pinned->twin.has_value());
  std::string bad = text;
  bad.replace(bad.find("\"value\": 1"), 10, "\"value\": 3");
  EXPECT_THROW(parse_family_spec(bad, "bad.json", "", "t"), UserError) << "DEPTH takes 1 or 2";
}
