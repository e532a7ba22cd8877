// Stamps: globaltimer and clock64 at six points of each CTA's life, per launch (slot = the launch's
// order, from an entry counter), for the probe's host side to read back.
#pragma once
constexpr int kStampSlots = 48, kStampCtas = 1056, kStampEvents = 6;
__device__ unsigned long long cl2_gt[kStampSlots][kStampCtas][kStampEvents];
__device__ long long cl2_ck[kStampSlots][kStampCtas][kStampEvents];
__device__ unsigned cl2_entries;
__shared__ unsigned cl2_slot;
__device__ __forceinline__ unsigned long long cl2_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define CL2_STAMP(e)                                                   \
  do {                                                                 \
    const unsigned s_ = cl2_slot % kStampSlots;                        \
    cl2_gt[s_][blockIdx.x][e] = cl2_globaltimer();                     \
    cl2_ck[s_][blockIdx.x][e] = clock64();                             \
  } while (0)
#define CL2_STAMP_ENTRY()                                              \
  do {                                                                 \
    if (threadIdx.x == 0) {                                            \
      cl2_slot = atomicAdd(&cl2_entries, 1u) / gridDim.x;              \
      CL2_STAMP(0);                                                    \
    }                                                                  \
  } while (0)
