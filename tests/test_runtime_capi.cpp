// libcl2's C API: its error paths on any machine (null arguments, unknown flags, missing or
// damaged inputs, a bad CL2_FIRST_CALL_TIMING, no GPU), and on a GPU, GEMMs through a small
// database (one winner, tuned by nobody: its configuration is the planner's first) compared
// exactly with a CPU product: the exact shape, a nearest-shape dispatch (one with its split-K
// re-chosen too, and one timed at its first call, inside and outside a graph capture), strided
// operands and an untuned layout (cuBLASLt), with a bias (cl2_gemm_bias), and timed as bench times
// (cl2_time_gemm_packed).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "../include/cl2/cl2.h"
#include "db_test_support.hpp"
#include "gpu/device_query.hpp"
#include "runtime/bundle.hpp"
#include "runtime/runtime_open.hpp"
#include "support/one_winner_db.hpp"
#include "support/require_gpu.hpp"
#include "support/runtime_fixtures.hpp"
#include "support/scoped_env.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

#define CL2_EXPECT_STATUS(call, status)                                         \
  do {                                                                          \
    const cl2_status got_ = (call);                                             \
    EXPECT_EQ(got_, status) << cl2_status_name(got_) << ": " << cl2_last_error(); \
    EXPECT_NE(std::string(cl2_last_error()), "") << "no message for " #call;  \
  } while (0)

void write_sample_bundle(const std::filesystem::path& dir) {
  DispatchTable table;
  table.device = test_device();
  table.entries.push_back(cl2_test::entry(cl2_test::tn(256, 256, 256), {"sm90", {{"BM", 128}}}));
  write_bundle(make_bundle(table, [](const DispatchEntry&) { return BundleKernel{"cubin", "source"}; }), dir);
}

}  // namespace

TEST(RuntimeCapi, NullAndUnknownArgumentsAreErrors) {
  cl2_handle* handle = reinterpret_cast<cl2_handle*>(0x1);
  CL2_EXPECT_STATUS(cl2_open(nullptr, &handle), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(handle, nullptr) << "a failed open leaves no handle";
  CL2_EXPECT_STATUS(cl2_open("", &handle), CL2_ERROR_INVALID_ARGUMENT);
  CL2_EXPECT_STATUS(cl2_open("db.sqlite", nullptr), CL2_ERROR_INVALID_ARGUMENT);
  CL2_EXPECT_STATUS(cl2_open_with_options("db.sqlite", 0x80, &handle), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cl2_last_error()).find("unknown flags 0x80"), std::string::npos) << cl2_last_error();
  // Every known flag passes the check: the missing file is what fails.
  CL2_EXPECT_STATUS(cl2_open_with_options("missing.sqlite", CL2_OPEN_LIBRARY_FALLBACK | CL2_OPEN_NO_FIRST_CALL_TIMING |
                                                                CL2_OPEN_WEIGHTS_READ_ONLY,
                                          &handle),
                    CL2_ERROR_BAD_INPUT_FILE);
  EXPECT_TRUE(open_options(CL2_OPEN_WEIGHTS_READ_ONLY).weights_read_only);
  EXPECT_FALSE(open_options(0).weights_read_only);
  CL2_EXPECT_STATUS(cl2_open_embedded(nullptr, 0, &handle), CL2_ERROR_INVALID_ARGUMENT);
  const cl2_embedded_bundle empty{nullptr, 0, nullptr, 0};
  CL2_EXPECT_STATUS(cl2_open_embedded(&empty, 0, &handle), CL2_ERROR_INVALID_ARGUMENT);
  alignas(16) unsigned short data[16] = {};
  CL2_EXPECT_STATUS(cl2_gemm(nullptr, CL2_LAYOUT_TN, CL2_ACCUM_F32, 4, 4, 4, data, 4, data, 4, data, 4, nullptr),
                    CL2_ERROR_INVALID_ARGUMENT);
  CL2_EXPECT_STATUS(cl2_gemm_packed(nullptr), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cl2_last_error()).find("args is null"), std::string::npos) << cl2_last_error();
  const cl2_gemm_args args{nullptr, CL2_LAYOUT_TN, CL2_ACCUM_F32, 4, 4, 4, data, 4, data, 4, data, 4, nullptr};
  CL2_EXPECT_STATUS(cl2_gemm_packed(&args), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cl2_last_error()).find("handle is null"), std::string::npos) << cl2_last_error();
  cl2_timing timing{};
  CL2_EXPECT_STATUS(cl2_time_gemm_packed(nullptr, &timing), CL2_ERROR_INVALID_ARGUMENT);
  CL2_EXPECT_STATUS(cl2_time_gemm_packed(&args, &timing), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cl2_last_error()).find("handle is null"), std::string::npos) << cl2_last_error();
  CL2_EXPECT_STATUS(cl2_time_gemm_packed(&args, nullptr), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cl2_last_error()).find("timing is null"), std::string::npos) << cl2_last_error();
  char text[64];
  CL2_EXPECT_STATUS(cl2_describe(nullptr, CL2_LAYOUT_TN, CL2_ACCUM_F32, 4, 4, 4, text, sizeof(text)),
                    CL2_ERROR_INVALID_ARGUMENT);
  cl2_close(nullptr);
  EXPECT_STREQ(cl2_status_name(CL2_ERROR_DEVICE_MISMATCH), "CL2_ERROR_DEVICE_MISMATCH");
}

TEST(RuntimeCapi, MissingOrDamagedInputsAreErrorsNotCrashes) {
  TempDir dir;
  cl2_handle* handle = nullptr;
  CL2_EXPECT_STATUS(cl2_open(dir.file("missing.sqlite").c_str(), &handle), CL2_ERROR_BAD_INPUT_FILE);
  write_bytes(dir.file("junk.sqlite"), "not a database at all, just some bytes that go on for a while");
  CL2_EXPECT_STATUS(cl2_open(dir.file("junk.sqlite").c_str(), &handle), CL2_ERROR_BAD_INPUT_FILE);
  // The fix names what a C caller passed the path to, not a command-line option it does not have.
  EXPECT_STREQ(cl2_last_error(), (dir.file("junk.sqlite") + ": is not a SQLite database; pass the path of a "
                                  "cuda-l2-tune tuning database to cl2_open").c_str());
  const auto bundle = dir.path() / "bundle";
  write_sample_bundle(bundle);
  write_bytes((bundle / "table.json").string(), "{\"format\": \"cl2-bundle\", \"version\": 1, \"tab");
  CL2_EXPECT_STATUS(cl2_open(bundle.c_str(), &handle), CL2_ERROR_BAD_INPUT_FILE);
  EXPECT_NE(std::string(cl2_last_error()).find("table.json: malformed"), std::string::npos) << cl2_last_error();
  std::filesystem::create_directories(dir.path() / "empty-folder");
  CL2_EXPECT_STATUS(cl2_open((dir.path() / "empty-folder").c_str(), &handle), CL2_ERROR_BAD_INPUT_FILE);
  EXPECT_EQ(handle, nullptr);
}

TEST(RuntimeCapi, WithoutAGpuOpeningSaysSo) {
  if (gpu_unavailable_reason(0).empty()) GTEST_SKIP() << "a GPU is present: the no-GPU path cannot be taken";
  TempDir dir;
  write_sample_bundle(dir.path() / "bundle");
  cl2_handle* handle = nullptr;
  CL2_EXPECT_STATUS(cl2_open((dir.path() / "bundle").c_str(), &handle), CL2_ERROR_NO_DEVICE);
  EXPECT_EQ(handle, nullptr);
}

TEST(RuntimeCapi, ABadFirstCallTimingVariableIsAnErrorAtOpen) {
  TempDir dir;
  const auto bundle = dir.path() / "bundle";
  write_sample_bundle(bundle);
  const cl2_test::ScopedEnv bad("CL2_FIRST_CALL_TIMING", "fast");
  cl2_handle* handle = nullptr;
  CL2_EXPECT_STATUS(cl2_open(bundle.c_str(), &handle), CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(std::string(cl2_last_error()).rfind("CL2_FIRST_CALL_TIMING=fast: not a count from 0 to 16; ", 0), 0u)
      << cl2_last_error();
  // With first-call timing off the variable is not read: opening goes on (to this machine's GPU
  // or its absence, to a bundle tuned on no GPU at all).
  const cl2_status off = cl2_open_with_options(bundle.c_str(), CL2_OPEN_NO_FIRST_CALL_TIMING, &handle);
  EXPECT_NE(off, CL2_ERROR_INVALID_ARGUMENT) << cl2_last_error();
  cl2_close(handle);
}

namespace {

// fp16 bit patterns of -0.5, 0 and 0.5: products and their sums over K <= 1024 are exact in fp32
// and in the fp16 output, so every implementation must give the same bits.
constexpr unsigned short kHalves[] = {0xb800, 0x0000, 0x3800};
float half_value(unsigned short bits) { return bits == 0x3800 ? 0.5f : bits == 0xb800 ? -0.5f : 0.f; }

struct HostGemm {
  Problem problem;
  std::int64_t lda, ldb, ldc;
  std::vector<unsigned short> a, b;
  std::vector<unsigned short> bias;  // N values added to every row, or none
  std::vector<float> expected;       // M x N

  HostGemm(const Problem& p, std::int64_t pad, Epilogue epilogue = Epilogue::Plain) : problem(p) {
    const GemmShape& s = p.shape;
    lda = s.k + pad;
    ldb = (p.layout == Layout::TN ? s.k : s.n) + pad;
    ldc = s.n + pad;
    std::mt19937 random(unsigned(s.m * 7 + s.n * 3 + s.k));
    a.resize(std::size_t(s.m * lda));
    b.resize(std::size_t((p.layout == Layout::TN ? s.n : s.k) * ldb));
    for (auto& x : a) x = kHalves[random() % 3];
    for (auto& x : b) x = kHalves[random() % 3];
    if (epilogue == Epilogue::Bias) bias.resize(std::size_t(s.n));
    for (auto& x : bias) x = kHalves[random() % 3];
    expected.assign(std::size_t(s.m * s.n), 0.f);
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        float sum = bias.empty() ? 0.f : half_value(bias[std::size_t(j)]);
        for (std::int64_t k = 0; k < s.k; ++k)
          sum += half_value(a[std::size_t(i * lda + k)]) *
                 half_value(p.layout == Layout::TN ? b[std::size_t(j * ldb + k)] : b[std::size_t(k * ldb + j)]);
        expected[std::size_t(i * s.n + j)] = sum;
      }
  }
};

float half_to_float(unsigned short bits) {
  // Exact for the values these products take (multiples of 0.25 below 2048 in magnitude).
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24) : std::ldexp(float(mantissa | 0x400), exponent - 25);
  return bits & 0x8000 ? -magnitude : magnitude;
}

// A GEMM's operands on the GPU, C filled with NaN (so that an unwritten output shows).
class DeviceGemm {
 public:
  explicit DeviceGemm(const HostGemm& g) : g_(g) {
    EXPECT_EQ(cudaMalloc(&a_, g.a.size() * 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b_, g.b.size() * 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&c_, c_bytes()), cudaSuccess);
    if (!g.bias.empty()) {
      EXPECT_EQ(cudaMalloc(&bias_, g.bias.size() * 2), cudaSuccess);
      cudaMemcpy(bias_, g.bias.data(), g.bias.size() * 2, cudaMemcpyHostToDevice);
    }
    cudaMemcpy(a_, g.a.data(), g.a.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b_, g.b.data(), g.b.size() * 2, cudaMemcpyHostToDevice);
    cudaMemset(c_, 0xff, c_bytes());
  }
  ~DeviceGemm() {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(c_);
    cudaFree(bias_);
  }
  DeviceGemm(const DeviceGemm&) = delete;
  DeviceGemm& operator=(const DeviceGemm&) = delete;

  // Enqueues the GEMM through the handle on `stream` (cl2_gemm_bias where it has a bias).
  cl2_status enqueue(cl2_handle* handle, cudaStream_t stream) const {
    const GemmShape& s = g_.problem.shape;
    const cl2_layout layout = g_.problem.layout == Layout::TN ? CL2_LAYOUT_TN : CL2_LAYOUT_NN;
    if (bias_)
      return cl2_gemm_bias(handle, layout, CL2_ACCUM_F32, s.m, s.n, s.k, a_, g_.lda, b_, g_.ldb, bias_, c_, g_.ldc,
                           stream);
    return cl2_gemm(handle, layout, CL2_ACCUM_F32, s.m, s.n, s.k, a_, g_.lda, b_, g_.ldb, c_, g_.ldc, stream);
  }

  // Times the GEMM through the handle (cl2_time_gemm_packed), after `stream`.
  cl2_status time(cl2_handle* handle, cudaStream_t stream, cl2_timing& timing) const {
    const GemmShape& s = g_.problem.shape;
    const cl2_gemm_args args{handle, g_.problem.layout == Layout::TN ? CL2_LAYOUT_TN : CL2_LAYOUT_NN,
                             CL2_ACCUM_F32, s.m, s.n, s.k, a_, g_.lda, b_, g_.ldb, c_, g_.ldc, stream};
    return cl2_time_gemm_packed(&args, &timing);
  }

  // After the GPU is done: how many outputs differ from the CPU product.
  int mismatches() const {
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const GemmShape& s = g_.problem.shape;
    std::vector<unsigned short> out(c_bytes() / 2);
    cudaMemcpy(out.data(), c_, c_bytes(), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j)
        wrong += half_to_float(out[std::size_t(i * g_.ldc + j)]) != g_.expected[std::size_t(i * s.n + j)];
    return wrong;
  }

 private:
  std::size_t c_bytes() const { return std::size_t(g_.problem.shape.m * g_.ldc * 2); }
  const HostGemm& g_;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *bias_ = nullptr;
};

// Runs the GEMM through the handle and returns how many outputs differ from the CPU product.
int mismatches(cl2_handle* handle, const HostGemm& g) {
  const DeviceGemm gemm(g);
  EXPECT_EQ(gemm.enqueue(handle, nullptr), CL2_SUCCESS) << cl2_last_error();
  return gemm.mismatches();
}

// Winners are compiled on first use through the kernel cache: a private one, or the one a GPU
// session carries precompiled kernels in (as run_tool does).
void use_test_kernel_cache(const TempDir& dir) {
  const char* shared = std::getenv("CL2_TEST_SHARED_CACHE");
  setenv("CUDA_L2_TUNE_CACHE", shared && *shared ? shared : dir.file("cache").c_str(), 1);
}

std::string describe(cl2_handle* handle, const Problem& p) {
  char text[512] = {};
  EXPECT_EQ(cl2_describe(handle, p.layout == Layout::TN ? CL2_LAYOUT_TN : CL2_LAYOUT_NN, CL2_ACCUM_F32, p.shape.m,
                         p.shape.n, p.shape.k, text, sizeof(text)),
            CL2_SUCCESS)
      << cl2_last_error();
  return text;
}

// A handle over a database in `dir` whose one winner is the planner's first at `tuned`, its kernels
// compiled through the test kernel cache; null where opening failed (cl2_last_error says why).
cl2_handle* open_one_winner(const TempDir& dir, const Problem& tuned) {
  use_test_kernel_cache(dir);
  write_one_winner_db(dir.file("one.sqlite"), tuned);
  cl2_handle* handle = nullptr;
  return cl2_open(dir.file("one.sqlite").c_str(), &handle) == CL2_SUCCESS ? handle : nullptr;
}

}  // namespace

TEST(RuntimeCapiGpu, GemmsMatchTheCpuProductOnEveryRoute) {
  CL2_REQUIRE_GPU();
  TempDir dir;
  const Problem tuned = cl2_test::tn(512, 512, 512);
  cl2_handle* handle = open_one_winner(dir, tuned);
  ASSERT_NE(handle, nullptr) << cl2_last_error();

  EXPECT_NE(describe(handle, tuned).find("ours exact"), std::string::npos) << describe(handle, tuned);
  EXPECT_EQ(mismatches(handle, HostGemm(tuned, 0)), 0) << describe(handle, tuned);
  const Problem near = cl2_test::tn(384, 520, 512);
  EXPECT_NE(describe(handle, near).find("ours nearest"), std::string::npos) << describe(handle, near);
  EXPECT_EQ(mismatches(handle, HostGemm(near, 0)), 0) << describe(handle, near);
  EXPECT_EQ(mismatches(handle, HostGemm(near, 0)), 0) << "the second call, from the caches";
  EXPECT_EQ(mismatches(handle, HostGemm(tuned, 8)), 0) << "strided operands (cuBLASLt)";
  const Problem nn = cl2_test::tn(512, 512, 512, Layout::NN);
  EXPECT_NE(describe(handle, nn).find("cublaslt heuristic"), std::string::npos) << describe(handle, nn);
  EXPECT_EQ(mismatches(handle, HostGemm(nn, 0)), 0) << describe(handle, nn);

  alignas(16) static unsigned short host[16];
  EXPECT_EQ(cl2_gemm(handle, CL2_LAYOUT_TN, CL2_ACCUM_F32, 0, 4, 4, host, 4, host, 4, host, 4, nullptr),
            CL2_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(cl2_gemm(handle, cl2_layout(7), CL2_ACCUM_F32, 4, 4, 4, host, 4, host, 4, host, 4, nullptr),
            CL2_ERROR_INVALID_ARGUMENT);
  cl2_close(handle);
}

// cl2_gemm_bias: each winner's bias twin, across the ways sm90 writes C (direct and TMA stores,
// swapped operands, split-K through the workspace and through DSMEM, stream-K, WG_KSPLIT) and an
// sm80 winner, at its tuned shape and a nearby one; strided operands take cuBLASLt's epilogue.
TEST(RuntimeCapiGpu, GemmsWithABiasMatchTheCpuProduct) {
  const auto sm90 = [](const Problem& p, std::map<std::string, std::int64_t> pins) {
    return cl2_test::sm90_config(p, cl2_test::any_config, pins);
  };
  const std::vector<std::pair<Problem, KernelConfig>> winners = {
      {cl2_test::tn(512, 512, 512), sm90(cl2_test::tn(512, 512, 512), {})},
      {cl2_test::tn(512, 512, 512), sm90(cl2_test::tn(512, 512, 512), {{"EPI_TMA", 1}})},
      {cl2_test::tn(16, 1024, 1024), sm90(cl2_test::tn(16, 1024, 1024), {{"SWAP_AB", 1}, {"BN", 16}})},
      {cl2_test::tn(128, 256, 8192), sm90(cl2_test::tn(128, 256, 8192), {{"SPLIT_K", 2}})},
      {cl2_test::tn(64, 512, 8192), sm90(cl2_test::tn(64, 512, 8192), {{"SPLIT_K", 4}, {"SPLIT_DSMEM", 1}})},
      {cl2_test::tn(1024, 640, 1024), sm90(cl2_test::tn(1024, 640, 1024), {{"STREAM_K", 1}})},
      {cl2_test::tn(256, 256, 4096), sm90(cl2_test::tn(256, 256, 4096), {{"CONSUMERS", 2}, {"WG_KSPLIT", 1}})},
      {cl2_test::tn(512, 512, 512),
       enumerate_family(builtin_families().at("sm80"), cl2_test::tn(512, 512, 512), cl2_test::h200_limits()).front().config},
  };
  CL2_REQUIRE_GPU();
  if (query_device(0).cc() != 90) GTEST_SKIP() << "sm90 configurations";
  TempDir dir;
  use_test_kernel_cache(dir);
  for (std::size_t i = 0; i < winners.size(); ++i) {
    const auto& [tuned, config] = winners[i];
    SCOPED_TRACE(config.label());
    const std::string db = dir.file("bias-" + std::to_string(i) + ".sqlite");
    write_one_winner_db(db, tuned, config);
    cl2_handle* handle = nullptr;
    ASSERT_EQ(cl2_open(db.c_str(), &handle), CL2_SUCCESS) << cl2_last_error();
    EXPECT_EQ(mismatches(handle, HostGemm(tuned, 0, Epilogue::Bias)), 0) << describe(handle, tuned);
    const Problem near = cl2_test::tn(tuned.shape.m + 3, tuned.shape.n + 8, tuned.shape.k);
    EXPECT_EQ(mismatches(handle, HostGemm(near, 0, Epilogue::Bias)), 0) << describe(handle, near);
    EXPECT_EQ(mismatches(handle, HostGemm(tuned, 0)), 0) << "without the bias, beside it";
    EXPECT_EQ(mismatches(handle, HostGemm(tuned, 8, Epilogue::Bias)), 0) << "strided operands (cuBLASLt)";
    cl2_close(handle);
  }
}

TEST(RuntimeCapiGpu, SplitKRechosenForANearbyShapeMatchesTheCpuProduct) {
  CL2_REQUIRE_GPU();
  if (query_device(0).cc() != 90) GTEST_SKIP() << "the split-K winner is an sm90 configuration";
  TempDir dir;
  use_test_kernel_cache(dir);
  // As in RuntimeDispatch.SplitKIsRechosenWithinTheWinnersCubin: a split-K-2 winner, called at
  // twice its K, runs from its own cubin with more slices (another kernel argument and workspace).
  const Problem tuned = cl2_test::tn(128, 256, 8192);
  write_one_winner_db(dir.file("split.sqlite"), tuned,
                      cl2_test::sm90_config(tuned, cl2_test::any_config, {{"SPLIT_K", 2}}));
  cl2_handle* handle = nullptr;
  ASSERT_EQ(cl2_open(dir.file("split.sqlite").c_str(), &handle), CL2_SUCCESS) << cl2_last_error();
  const Problem near = cl2_test::tn(128, 256, 16384);
  EXPECT_NE(describe(handle, near).find("SPLIT_K 2 -> "), std::string::npos) << describe(handle, near);
  EXPECT_EQ(mismatches(handle, HostGemm(near, 0)), 0) << describe(handle, near);
  EXPECT_EQ(mismatches(handle, HostGemm(near, 0)), 0) << "the second call, from the caches";
  EXPECT_EQ(mismatches(handle, HostGemm(tuned, 0)), 0) << "the winner's own factor, beside it";
  cl2_close(handle);
}

TEST(RuntimeCapiGpu, FirstCallTimingOfAnUntunedShapeMatchesTheCpuProduct) {
  CL2_REQUIRE_GPU();
  if (query_device(0).cc() != 90) GTEST_SKIP() << "the split-K winner is an sm90 configuration";
  TempDir dir;
  use_test_kernel_cache(dir);
  const cl2_test::ScopedEnv by_default("CL2_FIRST_CALL_TIMING", nullptr);  // up to the model's first 3
  // As in RuntimeFirstCall.ASplitKWinnersFactorsAreTimedEachWithItsGeometry: a split-K-2 winner at
  // twice its K, whose factors that the model ranks first all run from its cubin, so that the first
  // call times one kernel at several launch geometries (each its own workspace and argument).
  const Problem tuned = cl2_test::tn(128, 256, 8192), near = cl2_test::tn(128, 256, 16384);
  const std::string db = dir.file("split.sqlite");
  write_one_winner_db(db, tuned, cl2_test::sm90_config(tuned, cl2_test::any_config, {{"SPLIT_K", 2}}));
  const HostGemm gemm(near, 0);

  // Timed at the first call, whose result is the chosen kernel's; then run from the caches.
  cl2_handle* handle = nullptr;
  ASSERT_EQ(cl2_open(db.c_str(), &handle), CL2_SUCCESS) << cl2_last_error();
  CL2_EXPECT_CONTAINS(describe(handle, near), " pending (at the first call outside a graph capture)");
  EXPECT_EQ(mismatches(handle, gemm), 0) << describe(handle, near);
  const std::string timed = describe(handle, near);
  CL2_EXPECT_CONTAINS(timed, " (median of 5): ");
  CL2_EXPECT_CONTAINS(timed, " (chosen)");
  CL2_EXPECT_CONTAINS(timed, " planned at the shape (median of 5)");  // opened from a database: it compiles
  EXPECT_EQ(mismatches(handle, gemm), 0) << "the second call, from the caches: " << timed;
  EXPECT_EQ(mismatches(handle, HostGemm(tuned, 0)), 0) << "the winner's own shape, beside it";
  cl2_close(handle);

  // Inside a graph capture the model's first runs, nothing is timed, and the first call outside one
  // decides.
  ASSERT_EQ(cl2_open(db.c_str(), &handle), CL2_SUCCESS) << cl2_last_error();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    const DeviceGemm captured(gemm);
    // Relaxed: a shape's first call loads its module and allocates its workspace, which a stricter
    // capture refuses (bench calls each shape once before it captures).
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
    const cl2_status status = captured.enqueue(handle, stream);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    ASSERT_EQ(status, CL2_SUCCESS) << cl2_last_error();
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    EXPECT_EQ(captured.mismatches(), 0) << "the model's first, from the graph: " << describe(handle, near);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  CL2_EXPECT_CONTAINS(describe(handle, near), " pending");
  EXPECT_EQ(mismatches(handle, gemm), 0) << "the first call outside the capture";
  CL2_EXPECT_CONTAINS(describe(handle, near), " (chosen)");
  cudaStreamDestroy(stream);
  cl2_close(handle);

  // CL2_OPEN_NO_FIRST_CALL_TIMING: the model's first, nothing timed.
  ASSERT_EQ(cl2_open_with_options(db.c_str(), CL2_OPEN_NO_FIRST_CALL_TIMING, &handle), CL2_SUCCESS)
      << cl2_last_error();
  EXPECT_EQ(mismatches(handle, gemm), 0);
  EXPECT_EQ(describe(handle, near).find("first-call timing"), std::string::npos) << describe(handle, near);
  cl2_close(handle);
}

TEST(RuntimeCapiGpu, TunedOnAnotherGpuIsAnErrorOrTheLibrary) {
  CL2_REQUIRE_GPU();
  TempDir dir;
  DispatchTable table;
  table.device = test_device("NVIDIA Imaginary 9000");
  table.entries.push_back(cl2_test::entry(cl2_test::tn(256, 256, 256), {"sm90", {{"BM", 128}}}));
  write_bundle(make_bundle(table, [](const DispatchEntry&) { return BundleKernel{"cubin", "source"}; }),
               dir.path() / "b");
  cl2_handle* handle = nullptr;
  EXPECT_EQ(cl2_open((dir.path() / "b").c_str(), &handle), CL2_ERROR_DEVICE_MISMATCH);
  EXPECT_NE(std::string(cl2_last_error()).find("tuned on NVIDIA Imaginary 9000"), std::string::npos)
      << cl2_last_error();
  ASSERT_EQ(cl2_open_with_options((dir.path() / "b").c_str(), CL2_OPEN_LIBRARY_FALLBACK, &handle), CL2_SUCCESS)
      << cl2_last_error();
  EXPECT_EQ(mismatches(handle, HostGemm(cl2_test::tn(256, 256, 256), 0)), 0);
  cl2_close(handle);
}

// cl2_time_gemm_packed, bench's offline timing in the calling process: on the legacy default stream
// (which cannot be captured, so it times on the handle's own), at a tuned shape and at an untuned
// one (whose first call decides before the graph is captured), C is still the product afterwards,
// and the figures hang together; on a stream being captured it is an error, not a broken capture.
TEST(RuntimeCapiGpu, TimingAGemmAsBenchDoesLeavesItsProduct) {
  CL2_REQUIRE_GPU();
  TempDir dir;
  const Problem tuned = cl2_test::tn(512, 512, 512);
  cl2_handle* handle = open_one_winner(dir, tuned);
  ASSERT_NE(handle, nullptr) << cl2_last_error();
  for (const Problem& problem : {tuned, cl2_test::tn(384, 520, 512)}) {
    const HostGemm host(problem, 0);
    const DeviceGemm gemm(host);
    cl2_timing timing{};
    ASSERT_EQ(gemm.time(handle, nullptr, timing), CL2_SUCCESS) << cl2_last_error();
    EXPECT_EQ(gemm.mismatches(), 0) << describe(handle, problem);
    EXPECT_GE(timing.samples, 15) << "bench's final rule takes at least 15 replays";
    EXPECT_GE(timing.calls_per_sample, 1);
    EXPECT_GT(timing.min_us, 0.0);
    EXPECT_LE(timing.min_us, timing.median_us);
    EXPECT_LE(timing.median_us, timing.max_us);
    EXPECT_LT(timing.median_us, 10000.0) << "a 512-cube GEMM takes microseconds";
  }
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    const HostGemm host(tuned, 0);
    const DeviceGemm gemm(host);
    cl2_timing timing{};
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
    const cl2_status status = gemm.time(handle, stream, timing);
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture is left intact";
    EXPECT_EQ(status, CL2_ERROR_INVALID_ARGUMENT);
    CL2_EXPECT_CONTAINS(std::string(cl2_last_error()), "being captured into a CUDA graph");
    if (graph) cudaGraphDestroy(graph);
  }
  cudaStreamDestroy(stream);
  cl2_close(handle);
}
