#pragma once
// Fixtures shared by the database, export and show tests: a temporary folder that cleans up
// after itself and small, valid records to fill a tuning database with.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "core/kernel_config.hpp"
#include "core/lt_algo_config.hpp"
#include "db/records.hpp"

namespace cl2::test {

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("cl2-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;  // a test may have left a read-only folder behind: make it writable
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline DeviceInfo test_device(const std::string& name = "NVIDIA H200") {
  DeviceInfo device;
  device.name = name;
  device.cc_major = 9;
  device.cc_minor = 0;
  device.num_sms = 132;
  device.sm_clock_mhz = 1980;
  device.mem_clock_mhz = 3201;
  device.l2_bytes = 60 << 20;
  device.smem_optin_bytes = 232448;
  device.driver_version = "13.0";
  device.cuda_runtime_version = "13.0";
  device.cublas_version = "13.1.0";
  device.nvrtc_version = "13.0";
  return device;
}

inline KernelRecord test_kernel(std::int64_t bm, const std::string& family = "sm90") {
  const KernelConfig config{family, {{"BK", 64}, {"BM", bm}, {"BN", 256}, {"STAGES", 4}}};
  KernelRecord kernel;
  kernel.family = family;
  kernel.config_json = config.to_json();
  kernel.source_hash = "hash-" + std::to_string(bm);
  kernel.arch = "sm_90a";
  kernel.compiled = true;
  kernel.registers = 168;
  return kernel;
}

inline Problem test_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                            Layout layout = Layout::TN, Accum accum = Accum::F32) {
  return Problem{{m, n, k}, layout, accum};
}

inline TrialRecord ok_trial(std::int64_t run_id, std::int64_t device_id, std::int64_t kernel_id,
                            const Problem& problem, double time_us) {
  TrialRecord trial;
  trial.run_id = run_id;
  trial.device_id = device_id;
  trial.kernel_id = kernel_id;
  trial.problem = problem;
  trial.max_diff = 0.00048828125;
  trial.tolerance = 0.0078125;
  trial.time_us = time_us;
  trial.spread_pct = 0.4;
  trial.samples = 200;
  return trial;
}

// A cuBLASLt algorithm as the H200 reported one (data/h200-cublaslt-choices-2026-12-01.csv).
inline LtAlgoConfig test_lt_algo(int splitk = 1, const std::string& cluster = "1x2x1") {
  return {66, "64x32", "64xAUTO", splitk, splitk > 1 ? "inplace" : "none", 0, 3, cluster};
}

// A winner with its timings; the ids are left for the caller to fill in.
inline BaselineRecord test_baseline(std::int64_t device_id, std::int64_t run_id, const Problem& problem,
                                    double time_us, const std::string& detail,
                                    Provider provider = Provider::CublasltAutotune) {
  BaselineRecord baseline;
  baseline.device_id = device_id;
  baseline.run_id = run_id;
  baseline.problem = problem;
  baseline.provider = provider;
  baseline.time_us = time_us;
  baseline.detail = detail;
  return baseline;
}

inline WinnerRecord test_winner(const Problem& problem, double time_us, double cublas_nn_us,
                                double cublas_tn_us, double cublaslt_autotune_us) {
  WinnerRecord winner;
  winner.problem = problem;
  winner.time_us = time_us;
  winner.spread_pct = 0.3;
  winner.max_diff = 0.0009765625;
  winner.cublas_nn_us = cublas_nn_us;
  winner.cublas_tn_us = cublas_tn_us;
  winner.cublaslt_heuristic_us = cublaslt_autotune_us * 1.05;
  winner.cublaslt_autotune_us = cublaslt_autotune_us;
  winner.candidates_timed = 12;
  return winner;
}

}  // namespace cl2::test
