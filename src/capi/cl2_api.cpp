// The C API of libcl2 (include/cl2/cl2.h) over runtime/: every entry point turns exceptions into a
// status and the calling thread's last error, so no C++ exception crosses into the caller.
#include "cl2/cl2.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "gpu/cuda_check.hpp"
#include "runtime/gemm_timing.hpp"
#include "runtime/runtime_error.hpp"
#include "runtime/runtime_open.hpp"

struct cl2_handle {
  std::unique_ptr<cl2::Runtime> runtime;
  cl2::TimingStream timing;  // cl2_time_gemm_packed's; destroyed before the runtime
};

namespace {

thread_local std::string last_error;

template <typename Body>
cl2_status guarded(Body&& body) {
  try {
    body();
    last_error.clear();
    return CL2_SUCCESS;
  } catch (const cl2::RuntimeError& e) {
    last_error = e.what();
    return e.status;
  } catch (const cl2::GpuError& e) {
    last_error = e.what();
    return CL2_ERROR_CUDA;
  } catch (const std::exception& e) {
    last_error = e.what();
    return CL2_ERROR_INTERNAL;
  } catch (...) {
    last_error = "unknown error";
    return CL2_ERROR_INTERNAL;
  }
}

[[noreturn]] void invalid(const std::string& message) { throw cl2::RuntimeError(CL2_ERROR_INVALID_ARGUMENT, message); }

cl2::Problem problem_of(const char* function, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k) {
  if (layout != CL2_LAYOUT_TN && layout != CL2_LAYOUT_NN)
    invalid(fmt::format("{}: layout {} is neither CL2_LAYOUT_TN nor CL2_LAYOUT_NN", function, int(layout)));
  if (accum != CL2_ACCUM_F32 && accum != CL2_ACCUM_F16)
    invalid(fmt::format("{}: accum {} is neither CL2_ACCUM_F32 nor CL2_ACCUM_F16", function, int(accum)));
  return {{m, n, k}, layout == CL2_LAYOUT_TN ? cl2::Layout::TN : cl2::Layout::NN,
          accum == CL2_ACCUM_F32 ? cl2::Accum::F32 : cl2::Accum::F16};
}

cl2_status open_handle(cl2_handle** handle, unsigned flags, const std::function<cl2::RuntimeInput()>& read) {
  return guarded([&] {
    if (!handle) invalid("cl2_open: handle is null; pass the address of a cl2_handle*");
    *handle = nullptr;
    if (flags & ~unsigned(CL2_OPEN_LIBRARY_FALLBACK | CL2_OPEN_NO_FIRST_CALL_TIMING | CL2_OPEN_WEIGHTS_READ_ONLY))
      invalid(fmt::format("cl2_open: unknown flags {:#x}; pass 0 or any of CL2_OPEN_LIBRARY_FALLBACK, "
                          "CL2_OPEN_NO_FIRST_CALL_TIMING and CL2_OPEN_WEIGHTS_READ_ONLY",
                          flags));
    const cl2::OpenOptions options = cl2::open_options(flags);  // before the input: a bad variable on any machine
    auto opened = std::make_unique<cl2_handle>();
    opened->runtime = cl2::open_runtime(read(), options);
    *handle = opened.release();
  });
}

}  // namespace

extern "C" {

cl2_status cl2_open(const char* path, cl2_handle** handle) { return cl2_open_with_options(path, 0, handle); }

cl2_status cl2_open_with_options(const char* path, unsigned flags, cl2_handle** handle) {
  return open_handle(handle, flags, [&] {
    if (!path || !*path) invalid("cl2_open: path is empty; pass a tuning database or a bundle folder");
    return cl2::read_runtime_input(path, cl2::default_cache_dir(), "cl2_open");
  });
}

cl2_status cl2_open_embedded(const cl2_embedded_bundle* bundle, unsigned flags, cl2_handle** handle) {
  return open_handle(handle, flags, [&] {
    if (!bundle) invalid("cl2_open_embedded: bundle is null; pass &cl2_tuned_bundle of a header from export --format cpp");
    return cl2::read_embedded_input(*bundle);
  });
}

void cl2_close(cl2_handle* handle) { delete handle; }

cl2_status cl2_gemm(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k,
                    const void* a, int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc, void* stream) {
  return guarded([&] {
    if (!handle) invalid("cl2_gemm: handle is null; open one with cl2_open first");
    handle->runtime->gemm({problem_of("cl2_gemm", layout, accum, m, n, k), a, lda, b, ldb, c, ldc, stream});
  });
}

cl2_status cl2_gemm_bias(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k,
                         const void* a, int64_t lda, const void* b, int64_t ldb, const void* bias, void* c,
                         int64_t ldc, void* stream) {
  return guarded([&] {
    if (!handle) invalid("cl2_gemm_bias: handle is null; open one with cl2_open first");
    if (!bias) invalid("cl2_gemm_bias: bias is null; pass N values, or call cl2_gemm for none");
    handle->runtime->gemm({problem_of("cl2_gemm_bias", layout, accum, m, n, k), a, lda, b, ldb, c, ldc, stream, bias});
  });
}

// python/cl2tune packs cl2_gemm_args with struct.Struct("@PiiqqqPqPqPqP"): native sizes and alignment.
static_assert(sizeof(cl2_gemm_args) == 96 && offsetof(cl2_gemm_args, layout) == 8 && offsetof(cl2_gemm_args, m) == 16 &&
                  offsetof(cl2_gemm_args, a) == 40 && offsetof(cl2_gemm_args, stream) == 88,
              "cl2_gemm_args is laid out as python/cl2tune packs it");

cl2_status cl2_gemm_packed(const cl2_gemm_args* args) {
  if (!args) return guarded([] { invalid("cl2_gemm_packed: args is null; pass the address of a cl2_gemm_args"); });
  return cl2_gemm(args->handle, cl2_layout(args->layout), cl2_accum(args->accum), args->m, args->n, args->k, args->a,
                  args->lda, args->b, args->ldb, args->c, args->ldc, args->stream);
}

cl2_status cl2_gemm_bias_packed(const cl2_gemm_args* args, const void* bias) {
  if (!args)
    return guarded([] { invalid("cl2_gemm_bias_packed: args is null; pass the address of a cl2_gemm_args"); });
  return cl2_gemm_bias(args->handle, cl2_layout(args->layout), cl2_accum(args->accum), args->m, args->n, args->k,
                       args->a, args->lda, args->b, args->ldb, bias, args->c, args->ldc, args->stream);
}

cl2_status cl2_time_gemm_packed(const cl2_gemm_args* args, cl2_timing* timing) {
  return guarded([&] {
    if (!args) invalid("cl2_time_gemm_packed: args is null; pass the address of a cl2_gemm_args");
    if (!timing) invalid("cl2_time_gemm_packed: timing is null; pass the address of a cl2_timing");
    if (!args->handle) invalid("cl2_time_gemm_packed: handle is null; open one with cl2_open first");
    const cl2::Problem problem =
        problem_of("cl2_time_gemm_packed", cl2_layout(args->layout), cl2_accum(args->accum), args->m, args->n, args->k);
    const cl2::TimingStats stats = args->handle->timing.time(
        *args->handle->runtime,
        {problem, args->a, args->lda, args->b, args->ldb, args->c, args->ldc, args->stream});
    *timing = {stats.median_us, stats.min_us,  stats.max_us,           stats.spread_pct,
               stats.sm_clock_mhz, stats.samples, stats.calls_per_sample, stats.throttled_rounds, 0};
  });
}

cl2_status cl2_describe(cl2_handle* handle, cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k,
                        char* text, size_t size) {
  return guarded([&] {
    if (!handle) invalid("cl2_describe: handle is null; open one with cl2_open first");
    if (!text || size == 0) invalid("cl2_describe: text is null or size is 0; pass a buffer");
    const cl2::Problem problem = problem_of("cl2_describe", layout, accum, m, n, k);
    if (m < 1 || n < 1 || k < 1) invalid(fmt::format("cl2_describe {}: M, N and K must be at least 1", problem.shape.text()));
    const std::string why = handle->runtime->describe(problem);
    const std::size_t length = std::min(why.size(), size - 1);
    std::memcpy(text, why.data(), length);
    text[length] = '\0';
  });
}

const char* cl2_last_error(void) { return last_error.c_str(); }

const char* cl2_status_name(cl2_status status) {
  switch (status) {
    case CL2_SUCCESS: return "CL2_SUCCESS";
    case CL2_ERROR_INVALID_ARGUMENT: return "CL2_ERROR_INVALID_ARGUMENT";
    case CL2_ERROR_NO_DEVICE: return "CL2_ERROR_NO_DEVICE";
    case CL2_ERROR_DEVICE_MISMATCH: return "CL2_ERROR_DEVICE_MISMATCH";
    case CL2_ERROR_BAD_INPUT_FILE: return "CL2_ERROR_BAD_INPUT_FILE";
    case CL2_ERROR_CUDA: return "CL2_ERROR_CUDA";
    case CL2_ERROR_INTERNAL: return "CL2_ERROR_INTERNAL";
  }
  return "unknown cl2_status";
}

}  // extern "C"
