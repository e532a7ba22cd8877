// The GitHub Actions workflows (.github/workflows) pass actionlint, which also runs shellcheck on
// their shell steps where shellcheck is installed. scripts/setup.sh installs actionlint from PyPI.
#include <gtest/gtest.h>

#include "support/run_tool.hpp"

using namespace cl2_test;

TEST(Workflows, PassActionlint) {
  ScratchDir dir;
  if (run_command("command -v actionlint", dir).status != 0)
    GTEST_SKIP() << "actionlint is not installed (scripts/setup.sh installs it)";
  const auto r = run_command("cd " + source_path(".") + " && actionlint", dir);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}
