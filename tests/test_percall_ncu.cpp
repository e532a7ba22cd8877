// scripts/percall_ncu.py without a GPU: its verdict from what ncu reports for each side (a stand-in
// ncu on the PATH prints the CSV the real one prints), and its one-line errors for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/run_tool.hpp"

using namespace cl2_test;

namespace {

// An ncu that reports three launches of a kernel for the side its NVTX filter names: at 64x64x64
// the graph's kernel runs 0.3 us longer than the C++ timer's, at 4096x4096x4096 3 us longer, and at
// 128x128x128 the two sides run different kernels. Durations in ns, clocks in Hz, as with
// --print-units base; the units row and ncu's own lines come first, as they do.
std::string fake_ncu(const ScratchDir& dir) {
  std::filesystem::create_directories(dir.file("bin"));
  const std::string path = dir.write("bin/ncu", R"(#!/bin/sh
side=cpp; case "$*" in *python/*) side=python;; esac
kernel=cl2_gemm
case "$*" in
  *"--shape 64x64x64 "*) us=5000; [ $side = python ] && us=5300 ;;
  *"--shape 4096x4096x4096 "*) us=200000; [ $side = python ] && us=203000 ;;
  *) us=9000; [ $side = python ] && kernel=nvjet_other ;;
esac
echo "==PROF== Connected to process"
echo '"ID","Kernel Name","gpu__time_duration.sum","smsp__cycles_elapsed.avg.per_second"'
echo '"","","nsecond","cycle/second"'
for i in 0 1 2; do echo "\"$i\",\"$kernel\",\"$us\",\"1,755,000,000\""; done
)");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return dir.file("bin");
}

CommandResult percall_ncu(const ScratchDir& dir, const std::string& args, const std::string& path_first = "") {
  return run_command((path_first.empty() ? "" : "PATH=" + path_first + ":$PATH ") + "python3 " +
                         source_path("scripts/percall_ncu.py") + " --db tuned.sqlite " + args,
                     dir);
}

}  // namespace

TEST(PercallNcu, TheSameKernelWithinTwoMicrosecondsPassesAndOthersDoNot) {
  ScratchDir dir;
  const auto r = percall_ncu(dir, "--shape 64x64x64 --shape 4096x4096x4096 --shape 128x128x128", fake_ncu(dir));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("| 64x64x64 | cl2_gemm | 3 / 3 | 5.00 | 5.30 | +0.30 | 1755 / 1755 | yes |"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 4096x4096x4096 | cl2_gemm | 3 / 3 | 200.00 | 203.00 | +3.00 | 1755 / 1755 | no |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 128x128x128 | cpp cl2_gemm, python nvjet_other | 3 / 3 | 9.00 | 9.00 | +0.00 |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("between libcl2's C++ timer and cl2tune's graph: 1 of 3"), std::string::npos) << r.out;
}

TEST(PercallNcu, AllWithinIsExitZero) {
  ScratchDir dir;
  const auto r = percall_ncu(dir, "--shape 64x64x64", fake_ncu(dir));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(": 1 of 1"), std::string::npos) << r.out;
}

TEST(PercallNcu, BadInputIsAOneLineError) {
  ScratchDir dir;
  for (const std::string& args : {std::string(""), std::string("--shape 64x64"), std::string("--shape 0x64x64"),
                                  std::string("--shape 64x64x64 --launches 0"),
                                  "--shapes " + dir.file("missing.json")}) {
    const auto r = percall_ncu(dir, args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err.rfind("percall_ncu: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// An ncu that cannot profile (it prints several lines and fails): one line naming the side and the
// shape, exit 2.
TEST(PercallNcu, AnNcuThatFailsIsAOneLineError) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.file("bin"));
  const std::string ncu =
      dir.write("bin/ncu", "#!/bin/sh\necho '==ERROR== first' >&2\necho '==ERROR== second' >&2\nexit 1\n");
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  const auto r = percall_ncu(dir, "--shape 64x64x64", dir.file("bin"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("percall_ncu: ncu exited 1 on the cpp side of 64x64x64: ==ERROR== first ==ERROR== second;", 0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
