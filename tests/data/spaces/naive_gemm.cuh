// Test family: a plain one-thread-per-output GEMM (fp32 accumulation), correct for any shape and
// layout, that can also misbehave on purpose. CL2_FAULT == 1 writes far outside every allocation
// (an illegal-address fault that kills the worker's CUDA context); CL2_FAULT == 2 never finishes
// (the watchdog's case); CL2_FAULT == 3 counts its launches in the workspace and, from the second
// on, flips the lowest bit of C[0][0]: right within tolerance, but not the same bits twice;
// CL2_FAULT == 4 keeps 48 sums live where __launch_bounds__ leaves 32 registers, so ptxas spills
// and the tuner must reject it without timing it. The fake worker of the CPU tests acts out 1 and 2
// without a GPU.
#include "cl2_common.cuh"

#if CL2_FAULT == 4
#define CL2_NAIVE_BOUNDS __launch_bounds__(256, 8)
#else
#define CL2_NAIVE_BOUNDS
#endif

extern "C" __global__ void CL2_NAIVE_BOUNDS cl2_gemm(const __grid_constant__ Cl2GemmParams p) {
  const int col = blockIdx.x * 16 + threadIdx.x % 16;
  const int row = blockIdx.y * 16 + threadIdx.x / 16;
#if CL2_FAULT == 1
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) p.c[1ll << 40] = 0;
#elif CL2_FAULT == 2
  if (threadIdx.x == 0) {
    volatile int forever = 1;
    while (forever) {
    }
  }
#endif
  if (row >= p.m || col >= p.n) return;
  float acc = 0.f;
#if CL2_FAULT == 4
  float sums[48];
#pragma unroll
  for (int j = 0; j < 48; ++j) sums[j] = 0.f;
#endif
  for (int k = 0; k < p.k; ++k) {
    const float a = cl2_half_to_float(p.a[(long long)row * p.lda + k]);
    const float b = cl2_half_to_float(CL2_LAYOUT_TN ? p.b[(long long)col * p.ldb + k]
                                                    : p.b[(long long)k * p.ldb + col]);
    acc += a * b;
#if CL2_FAULT == 4
#pragma unroll
    for (int j = 0; j < 48; ++j) sums[j] += a * b * float(j + 1);
#endif
  }
#if CL2_FAULT == 4
#pragma unroll
  for (int j = 0; j < 48; ++j) acc += 0.f * sums[j];  // keeps every sum live (no fast math)
#endif
  unsigned short out = cl2_float_to_half(acc);
#if CL2_FAULT == 3
  if (row == 0 && col == 0 && atomicAdd(reinterpret_cast<int*>(p.workspace), 1) > 0) out ^= 1;
#endif
  p.c[(long long)row * p.ldc + col] = out;
}
