#pragma once
// Device memory for one problem: two input sets (uniform in [-0.5, 0.5] and in [-2, 2], different
// seeds), each with its fp32-accumulated reference, the output C and a byte buffer large enough to
// flush the L2. Candidates are verified on both sets and timed on the first.
#include <array>

#include "core/problem.hpp"
#include "gpu/device_buffer.hpp"

namespace cl2 {

struct InputSet {
  DeviceBuffer a;    // fp16 M x K, lda = K
  DeviceBuffer b;    // fp16: TN N x K (ldb = K), NN K x N (ldb = N)
  DeviceBuffer ref;  // fp32 M x N, ld = N
  double max_abs_ref = 0;
  float scale = 1;   // width of the uniform input range
  unsigned seed = 0;
};

struct ProblemBuffers {
  Problem problem;
  std::array<InputSet, 2> sets;
  DeviceBuffer c;       // fp16 M x N, ldc = N
  DeviceBuffer c_kept;  // a copy of an earlier output, for the run-to-run comparison

  long long lda() const { return problem.shape.k; }
  long long ldb() const { return problem.layout == Layout::TN ? problem.shape.k : problem.shape.n; }
  long long ldc() const { return problem.shape.n; }
};

}  // namespace cl2
