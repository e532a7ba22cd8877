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
// What a GEMM adds to A * B before it writes C: nothing, or a bias, N values added to every row
// (F.linear's). Tune times Plain kernels; the libcl2 runtime runs a winner's Bias twin (the same
// kernel compiled with CL2_BIAS) or cuBLASLt's bias epilogue for calls that pass one.
enum class Epilogue { Plain, Bias };
// Where the operands are when a timed call starts. Warm: every call reads the same A, B and C, so
// whatever fits stays in the L2 (one GEMM repeated). Rotate: calls stay back to back but cycle
// through copies of A, B and C that together exceed three times the L2, so each call reads its
// operands from DRAM (consecutive layers of a model, each with its own weights). Flush: each call
// runs alone after the L2 was overwritten.
enum class L2Policy { Warm, Rotate, Flush };
inline constexpr L2Policy kL2Policies[] = {L2Policy::Warm, L2Policy::Rotate, L2Policy::Flush};

std::string_view to_string(Layout layout);
std::string_view to_string(Accum accum);
std::string_view to_string(L2Policy policy);
// Throw UserError naming `what` (e.g. "--layout") on an unknown spelling.
Layout parse_layout(std::string_view text, std::string_view what);
Accum parse_accum(std::string_view text, std::string_view what);
L2Policy parse_l2_policy(std::string_view text, std::string_view what);

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string text() const;  // "MxNxK"
  // Bytes of A, B and C in fp16, each once: what a call must at least move.
  std::int64_t operand_bytes() const { return 2 * (m * k + k * n + m * n); }
  bool operator==(const GemmShape&) const = default;
};

// Size classes of DESIGN.md by work 2*M*N*K: small below 2*512^3, mid below 2*4096^3, large above.
enum class SizeClass { Small, Mid, Large };
SizeClass size_class(const GemmShape& shape);
std::string_view to_string(SizeClass size);

// A problem is tuned under one L2 policy: the same shape timed warm and rotated are two problems
// with their own trials, baselines and winner.
struct Problem {
  GemmShape shape;
  Layout layout = Layout::TN;
  Accum accum = Accum::F32;
  L2Policy l2 = L2Policy::Warm;
  std::string text() const;  // "MxNxK tn f32", with " l2 rotate" (or flush) when not warm
  bool operator==(const Problem&) const = default;
};

// How many copies of A, B and C the problem's calls cycle through on a GPU with `l2_bytes` of L2:
// one, except under the rotate policy enough that together they exceed three times the L2 (so a
// copy has long left the L2 when its turn comes again), and at least two.
int rotation_copies(const Problem& problem, std::int64_t l2_bytes);

// Bytes the worker allocates for one problem: two input sets (A, B, fp32 reference), C, the copy
// of C that a second launch must reproduce bit for bit, and the rotation's further copies.
std::int64_t problem_device_bytes(const Problem& problem, std::int64_t l2_bytes);

}  // namespace cl2
