// Family sm90: Hopper-native HGEMM. TMA loads A and B tiles into a ring of shared-memory stages
// (128-byte swizzle) completed on mbarriers; one producer warpgroup issues the loads, one or two
// consumer warpgroups issue wgmma.mma_async from shared memory into register accumulators; the
// grid is persistent (or one CTA per work item) and walks the tiles in grouped raster order;
// a cluster of two CTAs along M shares each B tile through TMA multicast; split-K slices meet in
// the workspace (cl2_common.cuh). Epilogue: registers -> swizzled shared memory -> TMA store, or
// predicated direct stores where TMA cannot address C (N % 8 != 0) and for split-K reductions.
//
// Compile-time configuration (space file configs/spaces/sm90.json): CL2_BM, CL2_BN, CL2_STAGES,
// CL2_CONSUMERS, CL2_PINGPONG, CL2_CLUSTER_M, CL2_EPI_TMA, CL2_LAYOUT_TN, CL2_ACCUM_F16, CL2_SPLITK
// (the split-K epilogue is compiled only into kernels that split), CL2_WG_REGS and the wgmma
// operand numbers. Run time: M, N, K, strides, split_k, raster_group (Cl2GemmParams).
#include "cl2_common.cuh"
#include "cl2_sm90_ptx.cuh"
#include "cl2_sm90_wgmma.cuh"

constexpr int kBM = CL2_BM;
constexpr int kBN = CL2_BN;
constexpr int kBK = 64;  // one 128-byte swizzle row of fp16
constexpr int kStages = CL2_STAGES;
constexpr int kConsumers = CL2_CONSUMERS;
constexpr int kCluster = CL2_CLUSTER_M;
constexpr bool kPingpong = CL2_PINGPONG != 0;
constexpr int kWgRows = kPingpong ? kBM : kBM / kConsumers;  // tile rows one consumer computes
constexpr int kStageReaders = kPingpong ? 1 : kConsumers;     // consumers reading each stage
constexpr int kSlices = kWgRows / 64;      // m64 wgmma slices per consumer
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kABytes = kBM * kBK * 2;
constexpr int kBBytes = kBN * kBK * 2;
constexpr int kCBytes = CL2_EPI_TMA ? kWgRows * 128 : 0;  // staging for one 64-column chunk
constexpr int kTransB = CL2_LAYOUT_TN ? 0 : 1;            // NN: B tile is N-major
constexpr int kBarrierSplitK = 1;  // named barriers: 0 is __syncthreads, 2.. one per consumer
#if CL2_ACCUM_F16
typedef unsigned Cl2Acc;  // two fp16 accumulators per register
#else
typedef float Cl2Acc;
#endif

static_assert(kWgRows % 64 == 0, "a consumer owns whole m64 slices");
static_assert(!kPingpong || kConsumers == 2, "ping-pong alternates two consumers");
static_assert(kBN % 16 == 0 && kBN <= 256, "wgmma N");
static_assert(kTransB == 0 || kBN % 64 == 0, "NN loads B in 64-column chunks");
static_assert(kCluster == 1 || (kTransB ? (kBN / 64) % kCluster == 0 : (kBN / kCluster) % 8 == 0),
              "each CTA of a cluster multicasts an equal, 1024-byte aligned share of B");

struct Cl2Work {
  int tile_m, tile_n, kb_begin, kb_end, slice;
};

// Work item w of the cluster's sequence: slices of K outermost (so neighbouring clusters share
// A rows and B columns in L2), then tiles in grouped raster order; the CTAs of a cluster take
// consecutive tile rows.
__device__ __forceinline__ Cl2Work cl2_work_of(const Cl2GemmParams& p, int w, int rank) {
  const int tiles_m = (p.m + kBM - 1) / kBM;
  const int tiles_n = (p.n + kBN - 1) / kBN;
  const int cluster_rows = (tiles_m + kCluster - 1) / kCluster;
  const int per_slice = cluster_rows * tiles_n;
  const int slice = w / per_slice;
  const Cl2Tile t = cl2_tile_of(w % per_slice, cluster_rows, tiles_n, p.raster_group);
  const int k_blocks = (p.k + kBK - 1) / kBK;
  return {t.m * kCluster + rank, t.n, int((long long)slice * k_blocks / p.split_k),
          int((long long)(slice + 1) * k_blocks / p.split_k), slice};
}

__device__ __forceinline__ int cl2_work_count(const Cl2GemmParams& p) {
  const int tiles_m = (p.m + kBM - 1) / kBM;
  const int tiles_n = (p.n + kBN - 1) / kBN;
  return ((tiles_m + kCluster - 1) / kCluster) * tiles_n * p.split_k;
}

// ---- producer -----------------------------------------------------------------------------------
__device__ __forceinline__ void cl2_produce(const Cl2GemmParams& p, unsigned smem_a, unsigned smem_b,
                                            unsigned full, unsigned empty, unsigned rank) {
  const unsigned short all_ctas = (unsigned short)((1u << kCluster) - 1);
  int it = 0;
  for (int w = blockIdx.x / kCluster; w < cl2_work_count(p); w += gridDim.x / kCluster) {
    const Cl2Work work = cl2_work_of(p, w, rank);
    for (int kb = work.kb_begin; kb < work.kb_end; ++kb, ++it) {
      const int stage = it % kStages;
      const unsigned phase = (it / kStages) & 1;
      cl2_mbar_wait(empty + stage * 8, phase ^ 1);
      const unsigned bar = full + stage * 8;
      cl2_mbar_arrive_expect_tx(bar, kABytes + kBBytes);  // B arrives whole: both shares
      cl2_tma_load_2d(smem_a + stage * kABytes, &p.tmap_a, bar, kb * kBK, work.tile_m * kBM);
      const unsigned b_stage = smem_b + stage * kBBytes;
#if CL2_LAYOUT_TN
      // B tile = kBN rows of 64 k; this CTA fetches rows [rank, rank+1) * kBN/kCluster.
      constexpr int share = kBN / kCluster;
      const unsigned dst = b_stage + rank * share * 128;
      const int row = work.tile_n * kBN + int(rank) * share;
      if (kCluster == 1) cl2_tma_load_2d(dst, &p.tmap_b, bar, kb * kBK, row);
      else cl2_tma_load_2d_multicast(dst, &p.tmap_b, bar, kb * kBK, row, all_ctas);
#else
      // B tile = kBN/64 chunks of [64 k rows][64 n]; CTA `rank` fetches every kCluster-th chunk.
      for (int chunk = int(rank); chunk < kBN / 64; chunk += kCluster) {
        const unsigned dst = b_stage + chunk * 8192;
        const int col = work.tile_n * kBN + chunk * 64;
        if (kCluster == 1) cl2_tma_load_2d(dst, &p.tmap_b, bar, col, kb * kBK);
        else cl2_tma_load_2d_multicast(dst, &p.tmap_b, bar, col, kb * kBK, all_ctas);
      }
#endif
    }
  }
}

// ---- consumer: main loop ------------------------------------------------------------------------
// Frees a stage: one arrival per consumer warp on the barrier of every CTA that writes into it.
__device__ __forceinline__ void cl2_release(unsigned empty, int stage, int lane) {
  const unsigned bar = empty + stage * 8;
  if (kCluster == 1) {
    if (lane == 0) cl2_mbar_arrive(bar);
  } else if (lane < kCluster) {
    cl2_mbar_arrive_cluster(bar, unsigned(lane));
  }
}

__device__ __forceinline__ void cl2_mma_k_block(Cl2Acc (&acc)[kSlices][CL2_WG_REGS], unsigned a_stage,
                                                unsigned b_stage, int consumer) {
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
#if CL2_LAYOUT_TN
    const unsigned long long desc_b = cl2_sw128_desc(b_stage + kk * 32, 16, 1024);
#else
    // N-major: 64-column chunks 8192 bytes apart (leading), 8-row k groups 1024 apart (stride).
    const unsigned long long desc_b = cl2_sw128_desc(b_stage + kk * 16 * 128, 8192, 1024);
#endif
#pragma unroll
    for (int s = 0; s < kSlices; ++s) {
      const unsigned rows = a_stage + ((kPingpong ? 0 : consumer * kWgRows) + s * 64) * 128;
      cl2_wgmma<kTransB>(acc[s], cl2_sw128_desc(rows + kk * 32, 16, 1024), desc_b);
    }
  }
}

// ---- consumer: epilogue -------------------------------------------------------------------------
// Accumulator layout of wgmma m64nN (PTX ISA, register fragments of D): in warp w, lane l holds,
// for each 8-column block j and half h, columns 8j + 2(l%4) + {0,1} of row 16w + l/4 + 8h.
__device__ __forceinline__ void cl2_pair(const Cl2Acc (&acc)[CL2_WG_REGS], int j, int h, float& lo,
                                         float& hi) {
#if CL2_ACCUM_F16
  cl2_unpack_half2(acc[2 * j + h], lo, hi);
#else
  lo = acc[4 * j + 2 * h];
  hi = acc[4 * j + 2 * h + 1];
#endif
}

__device__ __forceinline__ unsigned cl2_pair_half2(const Cl2Acc (&acc)[CL2_WG_REGS], int j, int h) {
#if CL2_ACCUM_F16
  return acc[2 * j + h];
#else
  return cl2_pack_half2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
#endif
}

__device__ __forceinline__ void cl2_store_pair(const Cl2GemmParams& p, int row, int col, float lo,
                                               float hi) {
  if (row >= p.m || col >= p.n) return;
  unsigned short* out = p.c + (long long)row * p.ldc + col;
  if (col + 1 < p.n && (p.ldc & 1) == 0) {
    *reinterpret_cast<unsigned*>(out) = cl2_pack_half2(lo, hi);
  } else {
    out[0] = cl2_float_to_half(lo);
    if (col + 1 < p.n) out[1] = cl2_float_to_half(hi);
  }
}

__device__ __forceinline__ void cl2_store_direct(const Cl2GemmParams& p,
                                                 const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                 int row0, int col0, int warp, int lane) {
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float lo, hi;
        cl2_pair(acc[s], j, h, lo, hi);
        cl2_store_pair(p, row0 + s * 64 + warp * 16 + lane / 4 + 8 * h, col0 + 8 * j + 2 * (lane % 4),
                       lo, hi);
      }
}

#if CL2_EPI_TMA
// 64-column chunks go through the consumer's staging buffer in the TMA 128-byte swizzle (16-byte
// unit u of row r sits at unit u ^ (r % 8)), which also keeps the stores free of bank conflicts.
__device__ __forceinline__ void cl2_store_tma(const Cl2GemmParams& p,
                                              const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                              unsigned staging, int row0, int col0, int consumer,
                                              int thread, int warp, int lane) {
#pragma unroll
  for (int chunk = 0; chunk < kBN / 64; ++chunk) {
    if (thread == 0) cl2_tma_store_wait_read();  // the previous chunk has left the buffer
    cl2_warpgroup_barrier(2 + consumer);
#pragma unroll
    for (int s = 0; s < kSlices; ++s)
#pragma unroll
      for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = s * 64 + warp * 16 + lane / 4 + 8 * h;
          const unsigned addr = staging + row * 128 + ((u ^ (row & 7)) << 4) + (lane % 4) * 4;
          asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(cl2_pair_half2(acc[s], chunk * 8 + u, h))
                       : "memory");
        }
    cl2_fence_async_shared();
    cl2_warpgroup_barrier(2 + consumer);
    if (thread == 0) {
      cl2_tma_store_2d(&p.tmap_c, staging, col0 + chunk * 64, row0);
      cl2_tma_store_commit();
    }
  }
}
#endif

// Split-K: this slice adds its fp32 partial into the tile's sum in the workspace; the last slice
// to arrive writes C (cl2_common.cuh). Cooperative consumers share the tile and its barrier; a
// ping-pong consumer owns its tile alone.
__device__ __forceinline__ void cl2_store_split(const Cl2GemmParams& p,
                                                const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                const Cl2Work& work, int* flags, int consumer,
                                                int thread, int warp, int lane) {
  const int tiles_n = (p.n + kBN - 1) / kBN;
  const int tiles = ((p.m + kBM - 1) / kBM) * tiles_n;
  const int tile = work.tile_m * tiles_n + work.tile_n;
  float* sum = cl2_splitk_sum_tile(p, tiles, tile, kBM * kBN);
  const int first_row = kPingpong ? 0 : consumer * kWgRows;
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float lo, hi;
        cl2_pair(acc[s], j, h, lo, hi);
        const int row = first_row + s * 64 + warp * 16 + lane / 4 + 8 * h;
        float* out = sum + row * kBN + 8 * j + 2 * (lane % 4);
        atomicAdd(out, lo);
        atomicAdd(out + 1, hi);
      }
  constexpr int group = kPingpong ? 128 : kConsumers * 128;
  const int group_thread = kPingpong ? thread : consumer * 128 + thread;
  bool last;
  if (!kPingpong) last = cl2_splitk_arrive<group, kBarrierSplitK>(p, tile, flags, group_thread);
  else if (consumer == 0) last = cl2_splitk_arrive<group, 2>(p, tile, flags, group_thread);
  else last = cl2_splitk_arrive<group, 3>(p, tile, flags + 1, group_thread);
  if (last) cl2_splitk_finish<group>(p, tiles, tile, kBM, kBN, work.tile_m * kBM, work.tile_n * kBN, group_thread);
}

__device__ __forceinline__ void cl2_consume(const Cl2GemmParams& p, unsigned smem_a, unsigned smem_b,
                                            unsigned staging, unsigned full, unsigned empty, unsigned order,
                                            int* flags, unsigned rank, int consumer) {
  const int thread = threadIdx.x % 128, warp = thread / 32, lane = thread % 32;
  const int tiles_m = (p.m + kBM - 1) / kBM;
  Cl2Acc acc[kSlices][CL2_WG_REGS];
  int it = 0, local = 0, turns = 0;
  for (int w = blockIdx.x / kCluster; w < cl2_work_count(p); w += gridDim.x / kCluster, ++local) {
    const Cl2Work work = cl2_work_of(p, w, rank);
    if (kPingpong && local % 2 != consumer) {  // the other consumer's tile: skip its stages
      it += work.kb_end - work.kb_begin;
      continue;
    }
#pragma unroll
    for (int s = 0; s < kSlices; ++s)
#pragma unroll
      for (int i = 0; i < CL2_WG_REGS; ++i) acc[s][i] = 0;
    // Ping-pong: main loops take turns. Waiting on a stage's barrier by parity is only sound for a
    // consumer at most one phase ahead of it, so a consumer starts a tile's stages only once the
    // other has waited on all of its own (the producer then cannot be a full ring behind).
    if (kPingpong) cl2_mbar_wait(order + consumer * 8, turns++ & 1);
    int held = -1;  // stage still read by the wgmma group in flight
    for (int kb = work.kb_begin; kb < work.kb_end; ++kb, ++it) {
      const int stage = it % kStages;
      cl2_mbar_wait(full + stage * 8, (it / kStages) & 1);
#pragma unroll
      for (int s = 0; s < kSlices; ++s) cl2_wgmma_fence_operands(acc[s]);
      cl2_wgmma_fence();
      cl2_mma_k_block(acc, smem_a + stage * kABytes, smem_b + stage * kBBytes, consumer);
      cl2_wgmma_commit();
      cl2_wgmma_wait<1>();  // the previous k-block's group is done with its stage
      if (held >= 0) cl2_release(empty, held, lane);
      held = stage;
    }
    if (kPingpong && thread == 0) cl2_mbar_arrive(order + (1 - consumer) * 8);  // the other's turn
    cl2_wgmma_wait<0>();
#pragma unroll
    for (int s = 0; s < kSlices; ++s) cl2_wgmma_fence_operands(acc[s]);
    if (held >= 0) cl2_release(empty, held, lane);
    if (work.tile_m >= tiles_m) continue;  // the padding CTA of an odd cluster pair
    const int row0 = work.tile_m * kBM + (kPingpong ? 0 : consumer * kWgRows), col0 = work.tile_n * kBN;
#if CL2_SPLITK
    cl2_store_split(p, acc, work, flags, consumer, thread, warp, lane);
#elif CL2_EPI_TMA
    cl2_store_tma(p, acc, staging, row0, col0, consumer, thread, warp, lane);
#else
    cl2_store_direct(p, acc, row0, col0, warp, lane);
#endif
  }
#if CL2_EPI_TMA
  if (thread == 0) cl2_tma_store_wait_all();  // shared memory must outlive the stores
#endif
  (void)staging;
}

extern "C" __global__ void __launch_bounds__(kThreads, 1) cl2_gemm(const __grid_constant__ Cl2GemmParams p) {
  extern __shared__ unsigned char cl2_smem[];
  // Swizzled tiles must start on 1024-byte boundaries; the launch reserves the slack.
  const unsigned raw = cl2_smem_addr(cl2_smem);
  const unsigned base = (raw + 1023u) & ~1023u;
  const unsigned smem_a = base;
  const unsigned smem_b = smem_a + kStages * kABytes;
  const unsigned staging = smem_b + kStages * kBBytes;
  const unsigned full = staging + kConsumers * kCBytes;
  const unsigned empty = full + kStages * 8;
  const unsigned order = empty + kStages * 8;  // ping-pong turn barriers, one per consumer
  int* flags = reinterpret_cast<int*>(cl2_smem + (order + 16 - raw));  // split-K, one per consumer
  const unsigned rank = kCluster > 1 ? cl2_cluster_rank() : 0u;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cl2_mbar_init(full + s * 8, 1);
      cl2_mbar_init(empty + s * 8, kStageReaders * 4 * kCluster);
    }
    cl2_mbar_init(order, 1);
    cl2_mbar_init(order + 8, 1);
    cl2_mbar_arrive(order);  // consumer 0 takes the first turn
    cl2_fence_barrier_init();
    cl2_prefetch_tensor_map(&p.tmap_a);
    cl2_prefetch_tensor_map(&p.tmap_b);
  }
  __syncthreads();
  if (kCluster > 1) cl2_cluster_sync();  // peers' barriers exist before anything reaches them

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    if (kConsumers == 2) cl2_regs_release<40>();
    if (threadIdx.x == 0) cl2_produce(p, smem_a, smem_b, full, empty, rank);
  } else {
    if (kConsumers == 2) cl2_regs_claim<232>();
    const int consumer = warpgroup - 1;
    cl2_consume(p, smem_a, smem_b, staging + consumer * kCBytes, full, empty, order, flags, rank, consumer);
  }
  // No CTA may leave while a peer can still multicast into it or arrive on its barriers.
  if (kCluster > 1) cl2_cluster_sync();
}
