#include "core/verification.hpp"

#include <cmath>

namespace cl2 {

double verification_tolerance(Accum accum, std::int64_t k, double max_abs_reference) {
  const double ulp_scale = std::ldexp(max_abs_reference, -11);  // half an fp16 ulp at |R|max
  // fp32 accumulation: output rounding plus a 4x margin for summation-order differences.
  if (accum == Accum::F32) return 4.0 * ulp_scale + 1e-3;
  // fp16 accumulation: one rounding per k16 step, growing like the square root of their count.
  const double steps = std::ceil(double(k) / 16.0);
  return ulp_scale * (4.0 + 4.0 * std::sqrt(steps)) + 1e-2;
}

bool passes_verification(double max_diff, double tolerance) {
  return std::isfinite(max_diff) && max_diff <= tolerance;
}

}  // namespace cl2
