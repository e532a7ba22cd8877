#pragma once
// The GEMM problem a kernel is tuned for: C (M x N, row-major, fp16) = A (M x K, row-major, fp16)
// times B, where B is either column-major ("TN": stored as N x K rows, K contiguous, as inference
// engines keep weights) or row-major K x N ("NN"), accumulated in fp32 or fp16.
#include <cstdint>
#include <string>
#include <string_view>

namespace cl2 {

enum class Layout { TN, NN };
enum class Accum { F32, F16 };

std::string_view to_string(Layout layout);
std::string_view to_string(Accum accum);
// Throw UserError naming `what` (e.g. "--layout") on an unknown spelling.
Layout parse_layout(std::string_view text, std::string_view what);
Accum parse_accum(std::string_view text, std::string_view what);

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string text() const;  // "MxNxK"
  bool operator==(const GemmShape&) const = default;
};

// Size classes of DESIGN.md by work 2*M*N*K: small below 2*512^3, mid below 2*4096^3, large above.
enum class SizeClass { Small, Mid, Large };
SizeClass size_class(const GemmShape& shape);
std::string_view to_string(SizeClass size);

struct Problem {
  GemmShape shape;
  Layout layout = Layout::TN;
  Accum accum = Accum::F32;
  std::string text() const;  // "MxNxK tn f32"
  bool operator==(const Problem&) const = default;
};

// Bytes the worker allocates for one problem: two input sets (A, B, fp32 reference), C and the
// copy of C that a second launch must reproduce bit for bit.
std::int64_t problem_device_bytes(const GemmShape& shape);

}  // namespace cl2
