// Family sm80: fp16 GEMM on mma.sync.m16n8k16 tensor cores, fed by ldmatrix from a cp.async
// multistage shared-memory ring (the Ampere recipe; also runs, at about half the wgmma rate, on
// sm_90). C (M x N, row-major) = A (M x K, row-major) * B, B is TN (N rows of K) when
// CL2_LAYOUT_TN, else NN (K rows of N).
//
// Compile-time parameters (configs/spaces/sm80.json): CL2_BM, CL2_BN, CL2_BK (CTA tile),
// CL2_WARPS_M x CL2_WARPS_N warps, CL2_STAGES ring slots, CL2_PREFETCH k-blocks in flight,
// CL2_REG_DB (double-buffered fragments), CL2_ALIGN8 (16-byte cp.async; needs K % 8 == 0 and, for
// NN, N % 8 == 0; otherwise element-wise loads), CL2_ACCUM_F16. Runtime: p.split_k (gridDim.z),
// p.raster_group.
//
// Shared memory, per stage: A as BM rows of BK halves, B as BN rows of BK halves (TN) or BK rows
// of BN halves (NN). Rows are cut into 16-byte chunks and chunk c of row r is stored at
// c ^ f(r) (see cl2_sm80_swizzle), so the 8 row addresses of every ldmatrix phase and the 8
// chunks of a 128-byte cp.async row segment fall in 8 distinct 16-byte bank groups without
// padding. After the ring sits one int: the split-K "last CTA" flag.
#include "cl2_common.cuh"
#include "cl2_sm80_ptx.cuh"

namespace cl2_sm80 {

constexpr int BM = CL2_BM, BN = CL2_BN, BK = CL2_BK;
constexpr int WARPS_M = CL2_WARPS_M, WARPS_N = CL2_WARPS_N;
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int STAGES = CL2_STAGES, PREFETCH = CL2_PREFETCH;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
constexpr int MI = WM / 16, NI = WN / 8;              // mma tiles per warp
constexpr int KSTEPS = BK / 16;
constexpr int A_STAGE_BYTES = BM * BK * 2;
constexpr int B_STAGE_BYTES = BN * BK * 2;
constexpr int RING_BYTES = STAGES * (A_STAGE_BYTES + B_STAGE_BYTES);

static_assert(BK == 32 || BK == 64, "BK must be 32 or 64 (4 or 8 chunks per K-major row)");
static_assert(BN % 32 == 0 && BM % 16 == 0, "tile sizes");
static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp tile is whole 16x16 ldmatrix.x4 blocks");
static_assert(THREADS >= 64 && THREADS <= 256, "2 to 8 warps");
static_assert(KSTEPS % 2 == 0, "REG_DB alternates two fragment buffers and restarts at 0");
static_assert(PREFETCH >= 1 && PREFETCH <= STAGES - 1,
              "a slot is refilled only after the barrier that ends its last reader");

// Physical chunk of logical 16-byte chunk `chunk` in row `row` of a tile whose rows hold `chunks`
// chunks. With 8+ chunks a row spans all 32 banks, so XOR with row % 8 spreads 8 consecutive rows;
// with 4 chunks (64-byte rows) two rows share one bank line, so rows r, r+1 differ in the line
// half and (r / 2) % 4 spreads the four row pairs. Only the low bits change: the chunk stays in
// its row and in its aligned group of 8.
template <int chunks>
__device__ __forceinline__ int cl2_sm80_swizzle(int row, int chunk) {
  static_assert(chunks == 4 || chunks == 8 || chunks == 16 || chunks == 32, "chunks per row");
  return chunks >= 8 ? chunk ^ (row & 7) : chunk ^ ((row >> 1) & 3);
}

// Copies one k-block of one operand into a stage of ROWS rows x CH 16-byte chunks. The operand's
// rows are `ld` elements apart in global memory and contiguous along the chunk: A and TN-B are
// (m or n) rows of K, NN-B is k rows of N. Thread tid owns chunk tid % CH of rows
// tid / CH + pass * ROWS_PER_PASS; `src` is its element of pass 0 (pointer arithmetic only, read
// only where valid), `rows_left` / `cols_left` how many operand rows / columns remain from there.
// Elements outside are stored as zeros, so edge tiles need no special case in the math.
template <int ROWS, int CH>
__device__ __forceinline__ void cl2_sm80_load_tile(unsigned stage, const unsigned short* src,
                                                   const unsigned short* fallback, unsigned ld,
                                                   int rows_left, int cols_left, int tid) {
  constexpr int ROWS_PER_PASS = THREADS / CH;  // CH divides 32, so THREADS / CH is exact
  constexpr int PASSES = (ROWS + ROWS_PER_PASS - 1) / ROWS_PER_PASS;
  const int chunk = tid % CH;
  // The space bounds ld below 2^24, so a tile's in-tile offsets (< 256 * ld) fit 32 bits.
  const unsigned pass_step = unsigned(ROWS_PER_PASS) * ld;
#if CL2_ALIGN8
#pragma unroll
#else
#pragma unroll 1  // one chunk's 8 loads at a time: unrolled, ptxas hoists them all into registers
#endif
  for (int pass = 0; pass < PASSES; ++pass) {
    const int r = pass * ROWS_PER_PASS + tid / CH;
    if (ROWS % ROWS_PER_PASS == 0 || r < ROWS) {
      const unsigned dst = stage + unsigned(r * CH + cl2_sm80_swizzle<CH>(r, chunk)) * 16u;
      const unsigned short* g = src + unsigned(pass) * pass_step;
      const bool row_ok = pass * ROWS_PER_PASS < rows_left;
#if CL2_ALIGN8
      // K % 8 == 0 (and N % 8 == 0 for NN): cols_left is a multiple of 8, so a chunk is wholly
      // inside or wholly outside.
      const bool full = row_ok && cols_left > 0;
      cl2_cp_async_16(dst, full ? g : fallback, full);
#else
      unsigned packed[4];
#pragma unroll
      for (int e = 0; e < 8; e += 2) {
        const unsigned lo = (row_ok && e < cols_left) ? g[e] : 0u;
        const unsigned hi = (row_ok && e + 1 < cols_left) ? g[e + 1] : 0u;
        packed[e / 2] = lo | (hi << 16);
      }
      cl2_st_shared_v4(dst, packed[0], packed[1], packed[2], packed[3]);
#endif
    }
  }
}

// A warp's operands for one 16-deep k-step: a[mi] is the m16k16 A fragment of rows 16*mi of the
// warp tile, b[ni] the k16n8 B fragment of columns 8*ni (PTX mma.m16n8k16 .row.col layouts).
struct Frags {
  unsigned a[MI][4];
  unsigned b[NI][2];
};

__device__ __forceinline__ void cl2_sm80_load_frags(Frags& f, unsigned a_stage, unsigned b_stage,
                                                    int ks, int wm, int wn, int lane) {
  // A (K-major): lanes 0-15 address rows 0-15 at k 0-7 of the step, lanes 16-31 rows 0-15 at
  // k 8-15, so matrices 0..3 = (rows 0-7, k lo), (rows 8-15, k lo), (rows 0-7, k hi),
  // (rows 8-15, k hi) = registers a0..a3 of the mma A fragment. Row offsets of 16*mi keep
  // row % 8 and so the swizzle.
  const int a_row = wm * WM + (lane & 15);
  const int a_chunk = cl2_sm80_swizzle<BK / 8>(a_row, ks * 2 + (lane >> 4));
  const unsigned a_addr = a_stage + unsigned(a_row * (BK * 2) + a_chunk * 16);
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) cl2_ldmatrix_x4(f.a[mi], a_addr + unsigned(mi * 16 * BK * 2));

#pragma unroll
  for (int nj = 0; nj < NI / 2; ++nj) {
    unsigned r[4];
#if CL2_LAYOUT_TN
    // B stored n-major with K contiguous: an 8x8 (n, k) matrix read without transpose gives lane
    // l the pair (k = 2(l%4), 2(l%4)+1; n = l/4) = mma B register. Matrices 0..3 =
    // (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi).
    const int b_row = wn * WN + nj * 16 + (lane & 7) + ((lane >> 4) << 3);
    const int b_chunk = cl2_sm80_swizzle<BK / 8>(b_row, ks * 2 + ((lane >> 3) & 1));
    cl2_ldmatrix_x4(r, b_stage + unsigned(b_row * (BK * 2) + b_chunk * 16));
#else
    // B stored k-major with N contiguous: an 8x8 (k, n) matrix read with .trans gives lane l the
    // same pair. Matrices 0..3 = (k lo, n 0-7), (k hi, n 0-7), (k lo, n 8-15), (k hi, n 8-15).
    const int k_row = ks * 16 + (lane & 15);
    const int n_chunk = cl2_sm80_swizzle<BN / 8>(k_row, (wn * WN + nj * 16) / 8 + (lane >> 4));
    cl2_ldmatrix_x4_trans(r, b_stage + unsigned(k_row * (BN * 2) + n_chunk * 16));
#endif
    f.b[2 * nj][0] = r[0];
    f.b[2 * nj][1] = r[1];
    f.b[2 * nj + 1][0] = r[2];
    f.b[2 * nj + 1][1] = r[3];
  }
}

#if CL2_ACCUM_F16
typedef unsigned Acc[MI][NI][2];  // half2 per row pair: [h] = row g + 8h, columns 2t, 2t+1
#else
typedef float Acc[MI][NI][4];     // [2h + j] = row g + 8h, column 2t + j
#endif

__device__ __forceinline__ void cl2_sm80_mma(Acc& acc, const Frags& f) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      const int ni = (mi & 1) ? NI - 1 - j : j;  // serpentine: reuse the last B fragment
#if CL2_ACCUM_F16
      cl2_mma_f16(acc[mi][ni], f.a[mi], f.b[ni]);
#else
      cl2_mma_f32(acc[mi][ni], f.a[mi], f.b[ni]);
#endif
    }
  }
}

// Row pair h (0: row g, 1: row g + 8) of mma tile (mi, ni) as two floats / as a rounded half2.
__device__ __forceinline__ void cl2_sm80_values(const Acc& acc, int mi, int ni, int h, float& v0,
                                                float& v1) {
#if CL2_ACCUM_F16
  cl2_unpack_half2(acc[mi][ni][h], v0, v1);
#else
  v0 = acc[mi][ni][2 * h];
  v1 = acc[mi][ni][2 * h + 1];
#endif
}

__device__ __forceinline__ unsigned cl2_sm80_packed(const Acc& acc, int mi, int ni, int h) {
#if CL2_ACCUM_F16
  return acc[mi][ni][h];
#else
  return cl2_pack_half2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
#endif
}

// Calls visit(mi, ni, h) for row pair h of every mma tile (mi, ni) a thread holds.
template <typename Visit>
__device__ __forceinline__ void cl2_sm80_for_each_pair(Visit visit) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) visit(mi, ni, h);
}

#if CL2_BIAS
// Adds v0 and v1 to row pair h of mma tile (mi, ni), in the accumulator's precision.
__device__ __forceinline__ void cl2_sm80_add(Acc& acc, int mi, int ni, int h, float v0, float v1) {
#if CL2_ACCUM_F16
  asm("add.rn.f16x2 %0, %0, %1;" : "+r"(acc[mi][ni][h]) : "r"(cl2_pack_half2(v0, v1)));
#else
  acc[mi][ni][2 * h] += v0;
  acc[mi][ni][2 * h + 1] += v1;
#endif
}
#endif

// C[row][col], C[row][col + 1] = packed (low half first), each only where inside M x N; one
// 4-byte store where both are inside and the address allows it.
__device__ __forceinline__ void cl2_sm80_store_pair(const Cl2GemmParams& p, int row, int col,
                                                    unsigned packed) {
  if (row >= p.m || col >= p.n) return;
  unsigned short* dst = p.c + row * p.ldc + col;
  if (col + 1 < p.n && (reinterpret_cast<unsigned long long>(dst) & 3ull) == 0) {
    *reinterpret_cast<unsigned*>(dst) = packed;
  } else {
    dst[0] = static_cast<unsigned short>(packed & 0xffffu);
    if (col + 1 < p.n) dst[1] = static_cast<unsigned short>(packed >> 16);
  }
}

}  // namespace cl2_sm80

extern "C" __global__ void __launch_bounds__(cl2_sm80::THREADS, 1)
    cl2_gemm(const __grid_constant__ Cl2GemmParams p) {
  using namespace cl2_sm80;
  extern __shared__ __align__(128) unsigned char cl2_smem[];

  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;

  const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
  const int tile = blockIdx.x;
  if (tile >= tiles_m * tiles_n) return;  // whole CTA: no barrier is left waiting
  const Cl2Tile t = cl2_tile_of(tile, tiles_m, tiles_n, p.raster_group);
  const int m0 = t.m * BM, n0 = t.n * BN;

  // This slice's k-blocks; an empty range still stores (zero) partials and counts itself. 32-bit
  // (split_k * k-blocks stays far below 2^31): a 64-bit division costs small kernels a few
  // hundred cycles before their first load.
  const int slice = blockIdx.z;
  const int kb_total = (p.k + BK - 1) / BK;
  const int kb_begin = slice * kb_total / p.split_k;
  const int kblocks = (slice + 1) * kb_total / p.split_k - kb_begin;

  const unsigned smem_a = cl2_smem_u32(cl2_smem);
  const unsigned smem_b = smem_a + STAGES * A_STAGE_BYTES;

  // Per-thread copy coordinates (see cl2_sm80_load_tile). A and TN-B rows are m / n, chunks
  // run along K; NN-B rows are k, chunks run along N.
  constexpr int A_CH = BK / 8;
  const int a_row = tid / A_CH, a_col = (tid % A_CH) * 8;
  const unsigned short* a_src = p.a + (m0 + a_row) * p.lda + a_col;
  const int a_rows_left = p.m - m0 - a_row;
#if CL2_LAYOUT_TN
  constexpr int B_ROWS = BN, B_CH = BK / 8;
  const int b_row = tid / B_CH, b_col = (tid % B_CH) * 8;
  const unsigned short* b_src = p.b + (n0 + b_row) * p.ldb + b_col;
  const int b_rows_left = p.n - n0 - b_row;
#else
  constexpr int B_ROWS = BK, B_CH = BN / 8;
  const int b_row = tid / B_CH, b_col = (tid % B_CH) * 8;
  const unsigned short* b_src = p.b + b_row * p.ldb + n0 + b_col;
  const int b_cols_left = p.n - n0 - b_col;
#endif

  // Issues local k-block j into ring slot `slot` (= j % STAGES) and closes one cp.async group,
  // empty past the last block, so that group g always holds k-block g and the wait counts below
  // hold to the end.
  auto issue = [&](int j, int slot) {
    if (j < kblocks) {
      const int k0 = (kb_begin + j) * BK;
      cl2_sm80_load_tile<BM, A_CH>(smem_a + slot * A_STAGE_BYTES, a_src + k0, p.a,
                                   unsigned(p.lda), a_rows_left, p.k - k0 - a_col, tid);
#if CL2_LAYOUT_TN
      cl2_sm80_load_tile<B_ROWS, B_CH>(smem_b + slot * B_STAGE_BYTES, b_src + k0, p.b,
                                       unsigned(p.ldb), b_rows_left, p.k - k0 - b_col, tid);
#else
      cl2_sm80_load_tile<B_ROWS, B_CH>(smem_b + slot * B_STAGE_BYTES, b_src + k0 * p.ldb, p.b,
                                       unsigned(p.ldb), p.k - k0 - b_row, b_cols_left, tid);
#endif
    }
    cl2_cp_async_commit();
  };

  Acc acc;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#if CL2_ACCUM_F16
      acc[mi][ni][0] = acc[mi][ni][1] = 0u;
#else
      acc[mi][ni][0] = acc[mi][ni][1] = acc[mi][ni][2] = acc[mi][ni][3] = 0.f;
#endif

  // Pipeline invariant: k-block j lives in slot j % STAGES and is copied by group j. Block
  // kb + PREFETCH is issued at the top of iteration kb into the slot last read by block
  // kb + PREFETCH - STAGES <= kb - 1, whose reads all precede barrier B(kb - 1). Barrier B(kb)
  // follows wait_group(PREFETCH - 1): groups 0..kb+1 of this thread are complete, and after the
  // barrier those of every thread are, so block kb + 1 may be read.
  int write_slot = 0;
#pragma unroll
  for (int j = 0; j < PREFETCH; ++j) {
    issue(j, write_slot);
    write_slot = write_slot + 1 == STAGES ? 0 : write_slot + 1;
  }
  cl2_cp_async_wait<PREFETCH - 1>();
  __syncthreads();

#if CL2_REG_DB
  // Fragments of step ks + 1 are loaded before the mma of step ks; the last step of a block loads
  // step 0 of the next block, after B(kb), so that load latency is hidden across blocks too.
  Frags frags[2];
  if (kblocks > 0) cl2_sm80_load_frags(frags[0], smem_a, smem_b, 0, wm, wn, lane);
#else
  Frags frags[1];
#endif

  int read_slot = 0;
  for (int kb = 0; kb < kblocks; ++kb) {
    issue(kb + PREFETCH, write_slot);
    write_slot = write_slot + 1 == STAGES ? 0 : write_slot + 1;
    const int next_slot = read_slot + 1 == STAGES ? 0 : read_slot + 1;
    const unsigned a_stage = smem_a + read_slot * A_STAGE_BYTES;
    const unsigned b_stage = smem_b + read_slot * B_STAGE_BYTES;
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
#if CL2_REG_DB
      if (ks + 1 < KSTEPS) {
        cl2_sm80_load_frags(frags[(ks + 1) & 1], a_stage, b_stage, ks + 1, wm, wn, lane);
      } else {
        cl2_cp_async_wait<PREFETCH - 1>();
        __syncthreads();  // B(kb)
        if (kb + 1 < kblocks)
          cl2_sm80_load_frags(frags[0], smem_a + next_slot * A_STAGE_BYTES,
                              smem_b + next_slot * B_STAGE_BYTES, 0, wm, wn, lane);
      }
      cl2_sm80_mma(acc, frags[ks & 1]);
#else
      cl2_sm80_load_frags(frags[0], a_stage, b_stage, ks, wm, wn, lane);
      cl2_sm80_mma(acc, frags[0]);
#endif
    }
#if !CL2_REG_DB
    cl2_cp_async_wait<PREFETCH - 1>();
    __syncthreads();  // B(kb)
#endif
    read_slot = next_slot;
  }
  // Every group holding a real k-block (groups < kblocks) completed at the last B(kb).

  // Accumulator (mi, ni, h) covers tile row wm*WM + 16mi + 8h + g, columns wn*WN + 8ni + 2t + {0,1}.
  const int lrow = wm * WM + (lane >> 2);
  const int lcol = wn * WN + (lane & 3) * 2;
#if CL2_BIAS
  // bias[n] joins C's column n once: in slice 0, before split-K stores the partials it sums.
  if (slice == 0)
    cl2_sm80_for_each_pair([&](int mi, int ni, int h) {
      cl2_sm80_add(acc, mi, ni, h, cl2_bias_at(p, n0 + lcol + ni * 8), cl2_bias_at(p, n0 + lcol + ni * 8 + 1));
    });
#endif

  if (p.split_k == 1) {
    cl2_sm80_for_each_pair([&](int mi, int ni, int h) {
      cl2_sm80_store_pair(p, m0 + lrow + mi * 16 + h * 8, n0 + lcol + ni * 8, cl2_sm80_packed(acc, mi, ni, h));
    });
    return;
  }

  // Split-K: every slice stores its whole fp32 tile, the last to arrive adds the slices in order
  // and writes C (cl2_common.cuh).
  const int tiles = tiles_m * tiles_n;
  float* partial = cl2_splitk_partial(p, tiles, tile, slice, BM * BN);
  cl2_sm80_for_each_pair([&](int mi, int ni, int h) {
    float v0, v1;
    cl2_sm80_values(acc, mi, ni, h, v0, v1);
    cl2_st_global_f32x2(partial + (lrow + mi * 16 + h * 8) * BN + lcol + ni * 8, v0, v1);
  });
  int* flag = reinterpret_cast<int*>(cl2_smem + RING_BYTES);
  if (!cl2_splitk_arrive<THREADS, 1>(p, tile, flag, tid)) return;
  constexpr int QUADS_PER_THREAD = BM * BN / 4 / THREADS;
  cl2_splitk_reduce<THREADS, (QUADS_PER_THREAD < 8 ? QUADS_PER_THREAD : 8), 1>(
      p, BN, m0, n0, 0, BM * BN / 4, tid, Cl2WorkspacePartials{p, tiles, tile, BM * BN});
}
