#pragma once
// Device memory for one problem: two input sets (uniform in [-0.5, 0.5] and in [-2, 2], different
// seeds), each with its fp32-accumulated reference, the output C, and under the rotate L2 policy
// further copies of the first set's A and B with their own C. Candidates are verified on both sets
// and timed on the first (and its copies).
#include <array>
#include <vector>

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

// A copy of the first input set's A and B with an output of its own, for the rotate policy.
struct OperandCopy {
  DeviceBuffer a, b, c;
};

// Where one launch reads A and B and writes C.
struct Operands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};

struct ProblemBuffers {
  Problem problem;
  std::array<InputSet, 2> sets;
  DeviceBuffer c;       // fp16 M x N, ldc = N
  std::vector<OperandCopy> rotation;  // empty unless the problem's L2 policy is rotate

  long long lda() const { return problem.shape.k; }
  long long ldb() const { return problem.layout == Layout::TN ? problem.shape.k : problem.shape.n; }
  long long ldc() const { return problem.shape.n; }

  // Operand slots: 0 and 1 are the input sets (both writing c), 2 and on the rotation's copies.
  int slot_count() const { return 2 + int(rotation.size()); }
  Operands operands(int slot) const;
  // The slots timed calls cycle through: the first set then each copy; empty without rotation.
  std::vector<int> rotation_slots() const;
};

}  // namespace cl2
