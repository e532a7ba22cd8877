// Kernel ABI shared by every template family and the host (src/runner includes this file too).
// A generated kernel is `extern "C" __global__ void cl2_gemm(const __grid_constant__ Cl2GemmParams p)`.
// fp16 values travel as their 16-bit patterns (unsigned short), so templates need no CUDA headers.
#ifndef CL2_ABI_CUH
#define CL2_ABI_CUH

// A CUtensorMap, encoded on the host with cuTensorMapEncodeTiled; families that use TMA read it
// from the kernel parameter (a __grid_constant__ address is what cp.async.bulk.tensor wants).
struct alignas(128) Cl2TensorMap {
  unsigned long long opaque[16];
};

struct Cl2GemmParams {
  Cl2TensorMap tmap_a;  // A: inner extent K, outer M
  Cl2TensorMap tmap_b;  // B: TN inner K, outer N; NN inner N, outer K
  Cl2TensorMap tmap_c;  // C: inner N, outer M
  const unsigned short* a;  // row-major M x K, leading dimension lda (elements)
  const unsigned short* b;  // TN: N rows of K (ldb >= K); NN: K rows of N (ldb >= N)
  unsigned short* c;        // row-major M x N, leading dimension ldc
  // Zeroed once when allocated; a kernel that keeps counters here must leave them zero on exit,
  // so that the next launch finds them as the first did.
  void* workspace;
  long long lda, ldb, ldc;
  int m, n, k;
  int split_k;       // K is cut into this many slices, reduced through the workspace (1 = none)
  int raster_group;  // tiles are visited in groups of this many tile rows (L2 reuse); >= 1
  int reserved;
  // Kernels compiled with CL2_BIAS: N values added to every row of C (F.linear's bias). After
  // every other field, so that kernels compiled before it read the rest where they always did.
  const unsigned short* bias;
};

#endif  // CL2_ABI_CUH
