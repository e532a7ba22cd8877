// Shapes files and L2 policies: an entry's "l2" picks the policy it is tuned under, the others take
// the file's default (tune --l2); the same shape under two policies is two problems; a bad "l2" is
// a one-line error naming the entry and the values allowed.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/shape_file.hpp"

using namespace cl2;

namespace {

std::string error_of(const std::string& text, const ShapeDefaults& defaults = {}) {
  try {
    parse_shapes(text, "s.json", defaults);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ShapeFile, EntriesTakeTheDefaultL2PolicyUnlessTheyGiveOne) {
  const std::string text = R"([[64, 64, 64], {"m": 8, "n": 4096, "k": 4096, "l2": "flush"},
                                {"m": 8, "n": 4096, "k": 4096, "l2": "warm", "layout": "nn"}])";
  const auto warm = parse_shapes(text, "s.json", {});
  ASSERT_EQ(warm.size(), 3u);
  EXPECT_EQ(warm[0].l2, L2Policy::Warm);
  EXPECT_EQ(warm[1].l2, L2Policy::Flush);
  EXPECT_EQ(warm[2], (Problem{{8, 4096, 4096}, Layout::NN, Accum::F32, L2Policy::Warm}));

  const auto rotated = parse_shapes(text, "s.json", {Layout::TN, Accum::F16, L2Policy::Rotate});
  EXPECT_EQ(rotated[0], (Problem{{64, 64, 64}, Layout::TN, Accum::F16, L2Policy::Rotate}));
  EXPECT_EQ(rotated[1].l2, L2Policy::Flush);
  EXPECT_EQ(rotated[2].l2, L2Policy::Warm);
}

TEST(ShapeFile, OneShapeUnderTwoPoliciesIsTwoProblemsAndRepeatsAreDropped) {
  const auto problems = parse_shapes(R"([{"m": 1, "n": 4096, "k": 4096},
                                         {"m": 1, "n": 4096, "k": 4096, "l2": "rotate"},
                                         {"m": 1, "n": 4096, "k": 4096, "l2": "warm"}])",
                                     "s.json", {});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].l2, L2Policy::Warm);
  EXPECT_EQ(problems[1].l2, L2Policy::Rotate);
}

TEST(ShapeFile, BadL2IsAOneLineErrorNamingTheEntry) {
  EXPECT_EQ(error_of(R"([[64, 64, 64], {"m": 64, "n": 64, "k": 64, "l2": "cold"}])"),
            "s.json: shape #2 l2: unknown L2 policy 'cold'; use warm, rotate or flush");
  EXPECT_EQ(error_of(R"([{"m": 64, "n": 64, "k": 64, "l2": 1}])"),
            "s.json: shape #1: l2 must be \"warm\", \"rotate\" or \"flush\"");
  EXPECT_EQ(error_of(R"([{"m": 64, "n": 64, "k": 64, "L2": "warm"}])"),
            "s.json: shape #1: unknown key \"L2\"; allowed are m, n, k, layout, accum, l2");
}
