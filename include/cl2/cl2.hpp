// C++ wrapper of libcl2 (cl2.h): a handle that closes itself, and failures as cl2::Error.
#ifndef CL2_CL2_HPP
#define CL2_CL2_HPP

#include <stdexcept>
#include <string>

#include "cl2/cl2.h"

namespace cl2 {

struct Error : std::runtime_error {
  Error(cl2_status code, const std::string& message) : std::runtime_error(message), status(code) {}
  cl2_status status;
};

inline void check(cl2_status status) {
  if (status != CL2_SUCCESS) throw Error(status, cl2_last_error());
}

class Gemm {
 public:
  explicit Gemm(const std::string& path, unsigned flags = 0) { check(cl2_open_with_options(path.c_str(), flags, &handle_)); }
  explicit Gemm(const cl2_embedded_bundle& bundle, unsigned flags = 0) {
    check(cl2_open_embedded(&bundle, flags, &handle_));
  }
  ~Gemm() { cl2_close(handle_); }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  // C (m x n, ldc) = A (m x k, lda) * B (TN: n rows of k; NN: k rows of n), fp16, on `stream`.
  void operator()(cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                  const void* b, int64_t ldb, void* c, int64_t ldc, void* stream = nullptr) {
    check(cl2_gemm(handle_, layout, accum, m, n, k, a, lda, b, ldb, c, ldc, stream));
  }

  // The same plus `bias` (n fp16 values) added to every row of C.
  void with_bias(cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                 const void* b, int64_t ldb, const void* bias, void* c, int64_t ldc, void* stream = nullptr) {
    check(cl2_gemm_bias(handle_, layout, accum, m, n, k, a, lda, b, ldb, bias, c, ldc, stream));
  }

  // Per-call GPU time of the GEMM, timed as bench times its offline figure (cl2_time_gemm_packed).
  cl2_timing time(cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                  const void* b, int64_t ldb, void* c, int64_t ldc, void* stream = nullptr) {
    const cl2_gemm_args args{handle_, layout, accum, m, n, k, a, lda, b, ldb, c, ldc, stream};
    cl2_timing timing{};
    check(cl2_time_gemm_packed(&args, &timing));
    return timing;
  }

  std::string describe(cl2_layout layout, cl2_accum accum, int64_t m, int64_t n, int64_t k) {
    char text[1024];
    check(cl2_describe(handle_, layout, accum, m, n, k, text, sizeof(text)));
    return text;
  }

  cl2_handle* get() const { return handle_; }

 private:
  cl2_handle* handle_ = nullptr;
};

}  // namespace cl2

#endif  // CL2_CL2_HPP
