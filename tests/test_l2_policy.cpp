// The L2 policies of core/problem.hpp: spelling, and how many operand copies rotate asks for.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/problem.hpp"

namespace cl2 {
namespace {

constexpr std::int64_t kL2 = 60 << 20;  // the H200's 60 MB

Problem decode(std::int64_t m, std::int64_t n, std::int64_t k, L2Policy l2) {
  return {{m, n, k}, Layout::TN, Accum::F32, l2};
}

TEST(L2Policy, SpellingsRoundTripAndABadOneNamesTheChoices) {
  for (const L2Policy policy : kL2Policies)
    EXPECT_EQ(parse_l2_policy(to_string(policy), "--l2"), policy);
  try {
    parse_l2_policy("cold", "--l2");
    FAIL() << "'cold' was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "--l2: unknown L2 policy 'cold'; use warm, rotate or flush");
  }
}

TEST(L2Policy, ProblemTextNamesOnlyAPolicyOtherThanWarm) {
  EXPECT_EQ(decode(1, 4096, 4096, L2Policy::Warm).text(), "1x4096x4096 tn f32");
  EXPECT_EQ(decode(1, 4096, 4096, L2Policy::Rotate).text(), "1x4096x4096 tn f32 l2 rotate");
  EXPECT_NE(decode(1, 4096, 4096, L2Policy::Warm), decode(1, 4096, 4096, L2Policy::Rotate));
}

TEST(L2Policy, RotationCopiesTogetherExceedThreeL2s) {
  EXPECT_EQ(rotation_copies(decode(1, 4096, 4096, L2Policy::Warm), kL2), 1);
  EXPECT_EQ(rotation_copies(decode(1, 4096, 4096, L2Policy::Flush), kL2), 1);
  for (const auto& [n, k] : {std::pair{4096, 4096}, {12288, 4096}, {5120, 13824}, {15360, 5120}, {64, 64}}) {
    const Problem problem = decode(16, n, k, L2Policy::Rotate);
    const int copies = rotation_copies(problem, kL2);
    EXPECT_GE(copies, 2) << problem.text();
    EXPECT_GT(copies * problem.shape.operand_bytes(), 3 * kL2) << problem.text();
    EXPECT_LE((copies - 1) * problem.shape.operand_bytes(), 3 * kL2) << problem.text() << ": one copy too many";
  }
  // 1x4096x4096: 33.6 MB a copy, so six copies make 201 MB > 180 MB.
  EXPECT_EQ(rotation_copies(decode(1, 4096, 4096, L2Policy::Rotate), kL2), 6);
}

TEST(L2Policy, DeviceBytesCountTheRotatedCopies) {
  const Problem warm = decode(8, 12288, 4096, L2Policy::Warm);
  Problem rotate = warm;
  rotate.l2 = L2Policy::Rotate;
  EXPECT_EQ(problem_device_bytes(rotate, kL2) - problem_device_bytes(warm, kL2),
            (rotation_copies(rotate, kL2) - 1) * warm.shape.operand_bytes());
}

}  // namespace
}  // namespace cl2
