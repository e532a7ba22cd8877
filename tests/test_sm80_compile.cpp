// NVRTC compiles of the sm80 family (no GPU needed): a sample covering both architectures,
// layouts and accumulators, small to large tiles, both load paths, both fragment schemes and
// ring depths must compile without spills, and the SASS must hold the instructions the design
// rests on (HMMA, LDSM, LDGSTS, no local memory).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include "codegen/codegen.hpp"
#include "compiler/kernel_compiler.hpp"
#include "support/run_tool.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"

using namespace cl2;

namespace {

const FamilySpec& sm80() { return builtin_families().at("sm80"); }

struct Sample {
  int bm, bn, bk, warps_m, warps_n, stages, reg_db, align8;
};

// Every sample is a real candidate of some problem (checked below); together they reach each
// code path: 64 to 256 threads, 32x16 to 64x64 warp tiles, all four warp grids' shapes, 4- to
// 32-chunk smem rows (the NN B tile of BN = 256 has 32), 2 to 5 stages.
const Sample kSamples[] = {
    {128, 128, 32, 2, 2, 4, 1, 1},  // the classic: 64x64 warp tiles, 4 warps
    {128, 128, 32, 2, 4, 4, 0, 0},  // 8 warps, element-wise loads, single fragment buffer
    {64, 64, 64, 2, 2, 3, 1, 1},
    {128, 256, 32, 2, 4, 3, 1, 1},  // 8 warps
    {256, 128, 64, 4, 2, 3, 0, 1},
    {32, 32, 32, 1, 2, 5, 0, 0},    // smallest tile, deepest ring
    {64, 128, 64, 2, 2, 2, 1, 0},
    {32, 256, 32, 1, 4, 4, 1, 1},   // widest NN row, 4 warps
    {256, 64, 32, 4, 1, 4, 1, 1},   // a column of warps
};

KernelConfig config_of(const Sample& s) {
  KernelConfig c;
  c.family = "sm80";
  c.params = {{"BM", s.bm},           {"BN", s.bn},          {"BK", s.bk},
              {"WARPS_M", s.warps_m}, {"WARPS_N", s.warps_n}, {"STAGES", s.stages},
              {"PREFETCH", s.stages - 1}, {"REG_DB", s.reg_db}, {"ALIGN8", s.align8},
              {"SPLIT_K", 1},         {"RASTER", 1}};
  return c;
}

// A problem whose candidates include the sample: aligned or not as the sample needs, large
// enough for every tile.
Problem problem_for(const Sample& s, Layout layout, Accum accum) {
  return s.align8 ? Problem{{4096, 4096, 4096}, layout, accum}
                  : Problem{{4095, 4097, 4095}, layout, accum};
}

struct Job {
  std::string name;
  CompileJob job;
};

std::vector<Job> sample_jobs() {
  std::vector<Job> jobs;
  for (const std::string arch : {"sm_80", "sm_90a"})
    for (Layout layout : {Layout::TN, Layout::NN})
      for (Accum accum : {Accum::F32, Accum::F16})
        for (const Sample& s : kSamples) {
          const KernelConfig config = config_of(s);
          jobs.push_back({arch + " " + std::string(to_string(layout)) + " " +
                              std::string(to_string(accum)) + " " + config.label(),
                          {generate_source(sm80(), config, layout, accum),
                           compile_options(sm80(), arch), arch}});
        }
  return jobs;
}

// A private cache, so every run compiles for real, removed afterwards (one per user: a test
// binary runs its tests in one process).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int count = 0;
    path = std::filesystem::temp_directory_path() /
           ("cl2_sm80_compile_" + std::to_string(getpid()) + "_" + std::to_string(count++));
    std::filesystem::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Compiled once for all tests of this file (the compiles are the expensive part).
struct Compiled {
  TempDir dir;
  std::vector<Job> jobs;
  std::vector<CompiledKernel> kernels;
  double seconds = 0;
};

const Compiled& compiled() {
  static const std::unique_ptr<Compiled> result = [] {
    auto r = std::make_unique<Compiled>();
    r->jobs = sample_jobs();
    std::vector<CompileJob> jobs;
    for (const auto& j : r->jobs) jobs.push_back(j.job);
    const auto start = std::chrono::steady_clock::now();
    r->kernels = KernelCompiler(r->dir.path.string()).compile_all(jobs);
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }();
  return *result;
}

std::string find_cuobjdump() {
  const std::string script = cl2_test::source_path("scripts/find-cuobjdump.sh");
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("bash " + script + " 2>/dev/null").c_str(), "r"),
                                             pclose);
  if (!pipe) return "";
  char buffer[4096];
  std::string out;
  while (fgets(buffer, sizeof buffer, pipe.get())) out += buffer;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Runs cuobjdump -sass on a cubin; returns its output and exit status.
std::pair<std::string, int> sass_of(const std::string& cuobjdump, const std::string& cubin) {
  FILE* pipe = popen(("\"" + cuobjdump + "\" -sass \"" + cubin + "\" 2>&1").c_str(), "r");
  if (!pipe) return {"popen failed", -1};
  char buffer[4096];
  std::string out;
  while (fgets(buffer, sizeof buffer, pipe)) out += buffer;
  return {out, pclose(pipe)};
}

// Compiles one sample on its own (ctest runs each test in its own process, so the SASS test
// must not pay for the whole sample).
CompiledKernel compile_one(const TempDir& dir, const std::string& arch, Layout layout, Accum accum,
                           const Sample& s, Epilogue epilogue = Epilogue::Plain) {
  const CompileJob job{generate_source(sm80(), config_of(s), layout, accum, epilogue),
                       compile_options(sm80(), arch), arch};
  return KernelCompiler(dir.path.string()).compile(job);
}

}  // namespace

TEST(Sm80Compile, SamplesAreCandidatesOfTheSpace) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    const DeviceLimits device = limits_for_arch(arch);
    for (Layout layout : {Layout::TN, Layout::NN})
      for (const Sample& s : kSamples) {
        KernelConfig want = config_of(s);
        want.params["RASTER"] = 8;  // both shapes have many tile rows
        const auto found = enumerate_family(sm80(), problem_for(s, layout, Accum::F32), device);
        bool present = false;
        for (const auto& c : found) present = present || c.config == want;
        EXPECT_TRUE(present) << arch << " " << to_string(layout) << " " << want.label();
      }
  }
}

TEST(Sm80Compile, SampleCompilesWithoutSpills) {
  const Compiled& c = compiled();
  ASSERT_EQ(c.kernels.size(), c.jobs.size());
  std::cout << "[ sm80     ] " << c.jobs.size() << " kernels compiled in " << c.seconds << " s\n";
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    SCOPED_TRACE(c.jobs[i].name);
    const CompiledKernel& k = c.kernels[i];
    ASSERT_TRUE(k.ok) << k.log;
    EXPECT_TRUE(std::filesystem::exists(k.cubin_path));
    EXPECT_GT(k.report.registers, 0) << k.log;
    EXPECT_LE(k.report.registers, 255);
    EXPECT_FALSE(k.report.spills()) << k.log;
    EXPECT_EQ(k.report.stack_bytes, 0) << k.log;
    EXPECT_EQ(k.report.rejection(), "") << k.log;
    std::cout << "[ sm80     ] " << c.jobs[i].name << ": " << k.report.registers << " registers\n";
  }
}

TEST(Sm80Compile, SassHoldsTensorCoreLdmatrixAndAsyncCopies) {
  const std::string cuobjdump = find_cuobjdump();
  if (cuobjdump.empty())
    GTEST_SKIP() << "no cuobjdump (scripts/find-cuobjdump.sh printed nothing; scripts/setup.sh "
                    "installs the PyPI package nvidia-cuda-cuobjdump)";
  const TempDir dir;
  const Sample& classic = kSamples[0];
  struct Want {
    Layout layout;
    const char* ldsm_b;  // how B fragments are read: transposed for NN
  };
  for (const Want& want : {Want{Layout::TN, "LDSM.16.M88.4"}, Want{Layout::NN, "LDSM.16.MT88.4"}}) {
    SCOPED_TRACE(to_string(want.layout));
    const CompiledKernel k = compile_one(dir, "sm_90a", want.layout, Accum::F32, classic);
    ASSERT_TRUE(k.ok) << k.log;
    const auto [sass, status] = sass_of(cuobjdump, k.cubin_path);
    if (status != 0 && sass.find("nvdisasm") != std::string::npos)
      GTEST_SKIP() << "cuobjdump cannot disassemble without nvdisasm (PyPI package "
                      "nvidia-cuda-nvdisasm): "
                   << sass.substr(0, 200);
    ASSERT_EQ(status, 0) << sass.substr(0, 2000);
    EXPECT_NE(sass.find("HMMA.16816.F32"), std::string::npos);
    EXPECT_NE(sass.find("LDSM.16.M88.4"), std::string::npos);  // A fragments
    EXPECT_NE(sass.find(want.ldsm_b), std::string::npos);
    EXPECT_NE(sass.find("LDGSTS"), std::string::npos);
    EXPECT_EQ(sass.find("LDL"), std::string::npos) << "local-memory loads";
    EXPECT_EQ(sass.find("STL"), std::string::npos) << "local-memory stores";
  }
  // fp16 accumulation uses the f16 tensor-core form.
  const CompiledKernel f16 = compile_one(dir, "sm_80", Layout::TN, Accum::F16, classic);
  ASSERT_TRUE(f16.ok) << f16.log;
  const auto [sass, status] = sass_of(cuobjdump, f16.cubin_path);
  ASSERT_EQ(status, 0) << sass.substr(0, 2000);
  EXPECT_NE(sass.find("HMMA.16816.F16"), std::string::npos);
}

// libcl2 runs a winner's bias twin (Epilogue::Bias) for a call with a bias: it compiles without
// spilling for both layouts and accumulators, and reads the bias (16-bit global loads, which the
// tuned kernel has none of) before the stores and split-K's partials.
TEST(Sm80Compile, BiasTwinsCompileAndReadTheBias) {
  const std::string cuobjdump = find_cuobjdump();
  const TempDir dir;
  for (Layout layout : {Layout::TN, Layout::NN})
    for (Accum accum : {Accum::F32, Accum::F16}) {
      SCOPED_TRACE(std::string(to_string(layout)) + " " + std::string(to_string(accum)));
      const CompiledKernel plain = compile_one(dir, "sm_90a", layout, accum, kSamples[0]);
      const CompiledKernel twin = compile_one(dir, "sm_90a", layout, accum, kSamples[0], Epilogue::Bias);
      ASSERT_TRUE(plain.ok) << plain.log;
      ASSERT_TRUE(twin.ok) << twin.log;
      EXPECT_EQ(twin.report.rejection(), "") << twin.log;
      if (cuobjdump.empty()) continue;
      const auto [plain_sass, plain_status] = sass_of(cuobjdump, plain.cubin_path);
      const auto [twin_sass, twin_status] = sass_of(cuobjdump, twin.cubin_path);
      if (twin_status != 0) continue;  // no nvdisasm: the SASS test above says so
      EXPECT_EQ(plain_sass.find("LDG.E.U16"), std::string::npos);
      EXPECT_NE(twin_sass.find("LDG.E.U16"), std::string::npos);
    }
}
