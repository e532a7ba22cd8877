#include "core/problem.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"

namespace cl2 {

std::string_view to_string(Layout layout) { return layout == Layout::TN ? "tn" : "nn"; }
std::string_view to_string(Accum accum) { return accum == Accum::F32 ? "f32" : "f16"; }

std::string_view to_string(L2Policy policy) {
  switch (policy) {
    case L2Policy::Warm: return "warm";
    case L2Policy::Rotate: return "rotate";
    case L2Policy::Flush: return "flush";
  }
  return "?";
}

Layout parse_layout(std::string_view text, std::string_view what) {
  if (text == "tn" || text == "TN") return Layout::TN;
  if (text == "nn" || text == "NN") return Layout::NN;
  throw UserError(fmt::format("{}: unknown layout '{}'; use tn (B column-major) or nn (B row-major)",
                              what, text));
}

Accum parse_accum(std::string_view text, std::string_view what) {
  if (text == "f32" || text == "fp32") return Accum::F32;
  if (text == "f16" || text == "fp16") return Accum::F16;
  throw UserError(fmt::format("{}: unknown accumulator '{}'; use f32 or f16", what, text));
}

L2Policy parse_l2_policy(std::string_view text, std::string_view what) {
  for (const L2Policy policy : kL2Policies)
    if (text == to_string(policy)) return policy;
  throw UserError(fmt::format("{}: unknown L2 policy '{}'; use warm, rotate or flush", what, text));
}

std::string GemmShape::text() const { return fmt::format("{}x{}x{}", m, n, k); }

SizeClass size_class(const GemmShape& shape) {
  const double work = shape.flops();
  if (work < 2.0 * 512.0 * 512.0 * 512.0) return SizeClass::Small;
  if (work < 2.0 * 4096.0 * 4096.0 * 4096.0) return SizeClass::Mid;
  return SizeClass::Large;
}

std::string_view to_string(SizeClass size) {
  switch (size) {
    case SizeClass::Small: return "small";
    case SizeClass::Mid: return "mid";
    case SizeClass::Large: return "large";
  }
  return "?";
}

std::string Problem::text() const {
  const std::string base = fmt::format("{} {} {}", shape.text(), to_string(layout), to_string(accum));
  return l2 == L2Policy::Warm ? base : fmt::format("{} l2 {}", base, to_string(l2));
}

int rotation_copies(const Problem& problem, std::int64_t l2_bytes) {
  if (problem.l2 != L2Policy::Rotate) return 1;
  const std::int64_t copies = 3 * l2_bytes / problem.shape.operand_bytes() + 1;
  return int(std::max<std::int64_t>(2, copies));
}

std::int64_t problem_device_bytes(const Problem& problem, std::int64_t l2_bytes) {
  const GemmShape& s = problem.shape;
  // Two input sets (A, B and an fp32 reference each) and the fp16 output.
  const std::int64_t sets = 2 * (2 * (s.m * s.k + s.k * s.n) + 4 * s.m * s.n) + 2 * s.m * s.n;
  return sets + (rotation_copies(problem, l2_bytes) - 1) * s.operand_bytes();
}

}  // namespace cl2
