// --version names the commit the binary was built from (cmake/build_stamp.cmake), the one the
// source tree it was built in has checked out.
#include <gtest/gtest.h>

#include "support/run_tool.hpp"

using namespace cl2_test;

TEST(BuildStamp, VersionNamesTheCommitTheBinaryWasBuiltFrom) {
  ScratchDir dir;
  const auto head = run_command("git -C " + source_path("") + " rev-parse --short HEAD 2>/dev/null", dir);
  if (head.status != 0 || head.out.empty()) GTEST_SKIP() << "the sources are not a git checkout here";
  const std::string commit = head.out.substr(0, head.out.find('\n'));
  const auto r = run_tool("--version", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cuda-l2-tune 0.1 (commit " + commit), std::string::npos)
      << r.out << "(a build older than the checkout's HEAD says an older commit: rebuild)";
}
