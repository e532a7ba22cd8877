#pragma once
// When is a kernel's output right? max_diff = max |C - R| over the output, R an fp32-accumulating
// reference on the same fp16 inputs. The tolerance scales with the largest |R| (fp16 output keeps
// 11 significant bits, so rounding alone is up to 2^-11 |R|) and, for fp16 accumulation, with the
// number of k16 steps whose partial sums are each rounded to fp16 (errors add like a random walk).
// A NaN or infinite difference (an fp16 accumulator that overflowed, an unwritten output poisoned
// with NaN) never passes.
#include <cstdint>

#include "core/problem.hpp"

namespace cl2 {

double verification_tolerance(Accum accum, std::int64_t k, double max_abs_reference);
bool passes_verification(double max_diff, double tolerance);

}  // namespace cl2
