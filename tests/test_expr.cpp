#include <gtest/gtest.h>

#include "core/expr.hpp"

using namespace cl2;

namespace {
ExprValue eval(const std::string& text, const ExprVariables& vars = {}) {
  return Expr::parse(text).eval(vars);
}
}  // namespace

TEST(Expr, IntegerArithmeticFollowsC) {
  EXPECT_EQ(as_int(eval("7 / 2")), 3);
  EXPECT_EQ(as_int(eval("7 % 4 + 2 * 3")), 9);
  EXPECT_EQ(as_int(eval("-(2 - 5)")), 3);
  EXPECT_DOUBLE_EQ(as_double(eval("7 / 2.0")), 3.5);
}

TEST(Expr, ComparisonsLogicAndTernary) {
  ExprVariables vars{{"BM", std::int64_t{128}}, {"K", std::int64_t{4095}}};
  EXPECT_TRUE(as_bool(eval("BM >= 128 && K % 8 != 0", vars)));
  EXPECT_FALSE(as_bool(eval("BM < 128 || !(K > 1)", vars)));
  EXPECT_EQ(as_int(eval("BM == 128 ? 1 : 2", vars)), 1);
  EXPECT_EQ(as_int(eval("BM <= 64 ? 1 : BM <= 128 ? 2 : 3", vars)), 2);
}

TEST(Expr, Functions) {
  EXPECT_EQ(as_int(eval("ceil_div(4097, 128)")), 33);
  EXPECT_EQ(as_int(eval("round_up(100, 64)")), 128);
  EXPECT_EQ(as_int(eval("min(3, 1, 2)")), 1);
  EXPECT_EQ(as_int(eval("max(3, 1, 2)")), 3);
  EXPECT_DOUBLE_EQ(as_double(eval("log2(1024)")), 10.0);
  EXPECT_EQ(as_int(eval("ceil(2.1) + floor(2.9)")), 5);
}

TEST(Expr, ErrorsNameTheProblem) {
  EXPECT_THROW(Expr::parse("1 +"), std::invalid_argument);
  EXPECT_THROW(Expr::parse("(1"), std::invalid_argument);
  EXPECT_THROW(eval("UNKNOWN + 1"), std::invalid_argument);
  EXPECT_THROW(eval("1 / 0"), std::invalid_argument);
  EXPECT_THROW(eval("nosuch(1)"), std::invalid_argument);
  try {
    eval("BM * 2");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BM"), std::string::npos);
  }
}
