// How a run's shapes fall into batches (tune/batches.hpp): without seeds a small first batch, so
// that the GPU starts soon, then seven equal ones; with seeds eight equal ones, the first an even
// sample of the file; fewer than 16 shapes, one batch.
#include <gtest/gtest.h>

#include "tune/batches.hpp"

namespace cl2 {
namespace {

std::vector<Problem> shapes(std::size_t count) {
  std::vector<Problem> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back({{std::int64_t(64 + i), 64, 64}, Layout::TN, Accum::F32});
  return out;
}

TEST(Batches, FewShapesAreOneBatch) {
  const BatchPlan plan = plan_batches(shapes(15), 0);
  EXPECT_EQ(plan.ends, std::vector<std::size_t>{15});
  EXPECT_EQ(plan.problems, shapes(15));
}

TEST(Batches, WithoutSeedsAThirtySecondFirstThenSevenEqualBatchesInFileOrder) {
  const BatchPlan plan = plan_batches(shapes(1000), 0);
  EXPECT_EQ(plan.ends, (std::vector<std::size_t>{32, 171, 310, 449, 588, 727, 866, 1000}));
  EXPECT_EQ(plan.problems, shapes(1000));
  EXPECT_FALSE(plan.seeded);
  EXPECT_EQ(plan.begin(0), 0u);
  EXPECT_EQ(plan.begin(1), 32u);
}

TEST(Batches, WithSeedsEightEqualBatchesTheFirstAnEvenSample) {
  const auto listed = shapes(100);
  const BatchPlan plan = plan_batches(listed, 6);
  EXPECT_TRUE(plan.seeded);
  EXPECT_EQ(plan.ends, (std::vector<std::size_t>{13, 26, 39, 52, 65, 78, 91, 100}));
  ASSERT_EQ(plan.problems.size(), listed.size());
  for (std::size_t i = 0; i < 13; ++i) EXPECT_EQ(plan.problems[i], listed[8 * i]);  // every eighth
  EXPECT_EQ(plan.problems[13], listed[1]);  // then the others in file order
}

}  // namespace
}  // namespace cl2
