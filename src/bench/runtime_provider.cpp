#include "bench/runtime_provider.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "core/errors.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

namespace {

constexpr std::string_view kOption = "--runtime-db";

// The runtime's own messages name the path, what is wrong with it and the fix (a database's, in
// terms of this option); bench adds the option in front.
UserError option_error(const RuntimeError& error) { return UserError(fmt::format("{}: {}", kOption, error.what())); }

}  // namespace

RuntimeInput read_runtime_db(const std::string& path, const std::string& cache_dir) {
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    throw UserError(fmt::format("--runtime-db {}: no such file or folder; pass a tuning database or a bundle folder "
                                "(export --format bundle), or leave the option out to dispatch from --db",
                                path));
  try {
    return read_runtime_input(path, cache_dir, kOption);
  } catch (const RuntimeError& e) {
    throw option_error(e);
  }
}

RuntimeProvider::RuntimeProvider(RuntimeInput input) {
  OpenOptions options;
  try {
    // CL2_FIRST_CALL_TIMING, as a program calling libcl2 would see it; bench never writes B, so it
    // opens as a serving program would, whose weights no kernel writes.
    options = open_options(CL2_OPEN_WEIGHTS_READ_ONLY);
  } catch (const RuntimeError& e) {
    throw UserError(e.what());
  }
  try {
    runtime_ = open_runtime(std::move(input), options);
  } catch (const RuntimeError& e) {
    throw option_error(e);
  }
}

ProviderCall RuntimeProvider::call(const ProblemMeasurement& measurement, RuntimeRoute& route) {
  const Problem problem = measurement.problem();
  Runtime& runtime = *runtime_;
  auto gemm_call = [problem](const GemmOperands& o, cudaStream_t stream) {
    return GemmCall{problem, o.a, o.lda, o.b, o.ldb, o.c, o.ldc, stream};
  };
  const Decision* taken = nullptr;  // decisions live as long as the runtime
  try {
    measurement.warm_up([&](const GemmOperands& o, cudaStream_t s) { taken = &runtime.gemm(gemm_call(o, s)); });
  } catch (const RuntimeError& e) {
    // The runtime builds a winner's kernel at its first call: one it cannot build as tuned (its
    // template changed since) is a fault of the database given, and the message says the fix.
    if (e.status == CL2_ERROR_BAD_INPUT_FILE) throw option_error(e);
    throw;
  }
  route = {std::string(to_string(taken->route)), taken->why, std::string(chosen_by(*taken))};
  const BufferGemm gemm = [&runtime, gemm_call](const GemmOperands& o, cudaStream_t s) {
    runtime.gemm(gemm_call(o, s));
  };
  if (const Verification verified = measurement.verify(gemm); !verified.passed)
    throw std::runtime_error(fmt::format("{}: the runtime's result fails verification ({}): {}", problem.text(),
                                         route.detail, verified.failure));
  return measurement.gemm_call(Provider::Runtime, gemm);
}

}  // namespace cl2
