// Family sm90: Hopper-native HGEMM. TMA loads A and B tiles into a ring of shared-memory stages
// (128-byte swizzle) completed on mbarriers; one producer warpgroup issues the loads, one or two
// consumer warpgroups issue wgmma.mma_async from shared memory into register accumulators; the
// grid is persistent (or one CTA per work item) and walks the tiles in grouped raster order.
// Two consumers either split each tile's rows (cooperative), take alternate tiles so one's
// epilogue overlaps the other's main loop (ping-pong), or take alternate k-blocks of the same
// tile and add their accumulators through shared memory (WG_KSPLIT: two independent wgmma chains
// where one chain on a small tile leaves the tensor cores idle). A cluster of CLUSTER_M x
// CLUSTER_N CTAs covers neighbouring tiles: the CTAs of a tile column share each B tile and those
// of a tile row each A tile, each loading its share once and multicasting it, which divides the
// bytes pulled from L2 (what bounds mid-size shapes). Split-K slices meet in the workspace and
// reduce their tile together (cl2_common.cuh), or with SPLIT_DSMEM form a cluster and read each
// other's partials from shared memory; with stream-K each CTA of a one-wave grid takes an
// equal share of all tiles' k-blocks and the CTAs that share a tile join their sums. Epilogue:
// registers -> swizzled shared memory -> TMA store, or predicated direct stores where TMA cannot
// address C (N % 8 != 0).
// SWAP_AB (TN only) computes C^T = B * A^T: the tile's rows run along N and its columns along M,
// so a small M lands on wgmma's N side (any multiple of 8) instead of filling 64-row slices, and a
// cluster along the tile's columns splits M between CTAs that share each weight tile. Both operands
// are K-major either way, so only the roles of the two tensor maps and the epilogue's addressing
// change: "rows" and "columns" below are the tile's (the kernel's) own, and the epilogue maps them
// to C.
// PDL (programmatic dependent launch, for calls back to back on fresh weights): the grid may start
// while the previous kernel of its stream finishes; it requests its first weight tiles at once,
// and waits for that kernel before it reads A or writes anything; with PDL = 2 or 3, one or two
// more rings' worth of them are requested into the L2 alone. With PDL=0 the code is what it was
// before PDL existed (the same SASS).
//
// Compile-time configuration (space file configs/spaces/sm90.json): CL2_BM, CL2_BN, CL2_STAGES,
// CL2_CONSUMERS, CL2_ACC_CHAINS, CL2_PINGPONG, CL2_WG_KSPLIT, CL2_CLUSTER_M, CL2_CLUSTER_N, CL2_EPI_TMA,
// CL2_STREAM_K, CL2_SWAP_AB, CL2_KB_PAIR, CL2_SPLIT_DSMEM, CL2_PDL, CL2_LAYOUT_TN, CL2_ACCUM_F16, CL2_SPLITK
// (the split-K epilogue is compiled only into kernels that split; CL2_RED_QUADS and CL2_RED_SLICES
// shape its reduction's loads), CL2_WG_REGS and the wgmma operand numbers. Run time: M, N, K,
// strides, split_k, raster_group (Cl2GemmParams).
#include "cl2_common.cuh"
#include "cl2_sm90_ptx.cuh"
#include "cl2_sm90_wgmma.cuh"

constexpr int kBM = CL2_BM;
constexpr int kBN = CL2_BN;
// A stage holds kPair = 2^KB_PAIR k-blocks of 64 ("atoms": one 128-byte swizzle row of fp16 each),
// atom-major. With KB_PAIR one TMA box brings all atoms of an operand (a 3-D tensor map: k within
// the atom, rows, atoms): measured on the H200, a stage took about 140 ns however few bytes its two
// boxes carried (9 KB or 16 KB alike), so small tiles were bound by the count of boxes, not by
// bytes; and a box of 4 or 8 atoms reads 512 or 1024 contiguous bytes of each weight row.
constexpr int kPair = 1 << CL2_KB_PAIR;
constexpr int kAtom = 64;
constexpr int kBK = kAtom * kPair;
constexpr int kStages = CL2_STAGES;
constexpr int kConsumers = CL2_CONSUMERS;
// Independent accumulator sets per consumer: consecutive k16 steps of a k-block go to alternate
// sets, so a wgmma need not wait for the previous one's result. One chain of dependent wgmma on a
// tile narrower than 256 leaves the tensor pipe idle for part of each instruction's latency
// (measured on the H200: 72% active on 128x128 tiles with loads taken out, 87% for cuBLAS).
constexpr int kChains = CL2_ACC_CHAINS;
constexpr int kClusterM = CL2_CLUSTER_M;  // CTAs along M: they share B tiles
constexpr int kClusterN = CL2_CLUSTER_N;  // CTAs along N: they share A tiles
constexpr int kCluster = kClusterM * kClusterN;
constexpr bool kSwapAB = CL2_SWAP_AB != 0;
// PDL = 2 or 3: that many rings' worth of weights requested before the wait, the first into
// shared memory and the others into the L2 alone. (In #if: configurations tuned before PDL
// existed define no CL2_PDL.)
#if CL2_PDL > 1
constexpr int kL2Rings = CL2_PDL - 1;
#endif
constexpr bool kPingpong = CL2_PINGPONG != 0;
constexpr bool kWgSplitK = CL2_WG_KSPLIT != 0;
constexpr bool kWholeTile = kPingpong || kWgSplitK;           // each consumer holds all tile rows
constexpr int kWgRows = kWholeTile ? kBM : kBM / kConsumers;  // tile rows one consumer computes
constexpr int kStageReaders = kWholeTile ? 1 : kConsumers;    // consumers reading each stage
constexpr int kEpiConsumers = kWgSplitK ? 1 : kConsumers;     // consumers writing C
constexpr int kSlices = kWgRows / 64;  // m64 wgmma slices per consumer
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kABytes = kBM * kBK * 2;
constexpr int kBBytes = kBN * kBK * 2;
// TMA-store staging per consumer: one chunk of C (EPI_TMA=1) or the consumer's whole tile (2). A
// chunk is CL2_EPI_COLS tile columns of the consumer's rows (64, or where the tile's width is not a
// multiple of 64 the widest of 32, 16 and 8 that divides it: the space file sets it, and the C
// tensor map's box and swizzle with it), or with SWAP_AB one 64-row wgmma slice, whose rows are C's
// columns, by the tile's columns (C's rows).
constexpr int kEpiCols = CL2_EPI_COLS;
constexpr int kEpiRowBytes = kEpiCols * 2;
static_assert(kSwapAB ? kEpiCols == 64 : kBN % kEpiCols == 0, "chunks tile the consumer's part of C");
constexpr int kEpiChunks = kSwapAB ? kSlices : kBN / kEpiCols;
constexpr int kEpiChunkBytes = (kSwapAB ? kBN : kWgRows) * kEpiRowBytes;
constexpr int kEpiBatch = CL2_EPI_TMA == 2 ? kEpiChunks : 1;
constexpr int kCBytes = CL2_EPI_TMA ? kEpiBatch * kEpiChunkBytes : 0;
constexpr int kExchangeBytes = kWgSplitK ? kSlices * CL2_WG_REGS * 4 * 128 : 0;
constexpr int kTransB = CL2_LAYOUT_TN ? 0 : 1;  // NN: B tile is N-major
// Named barriers: 0 is __syncthreads, 1 both consumers' split-K meeting, 2.. one per consumer,
// 4 and 5 the WG_KSPLIT exchange (partial ready, buffer free).
constexpr int kBarrierSplitK = 1;
constexpr int kBarrierExchangeReady = 4;
constexpr int kBarrierExchangeFree = 5;
#if CL2_ACCUM_F16
typedef unsigned Cl2Acc;  // two fp16 accumulators per register
#else
typedef float Cl2Acc;
#endif

static_assert(kWgRows % 64 == 0, "a consumer owns whole m64 slices");
static_assert(!kWholeTile || kConsumers == 2, "ping-pong and WG_KSPLIT alternate two consumers");
static_assert(!(kPingpong && kWgSplitK), "one way of sharing work between consumers");
static_assert(!kWgSplitK || (kStages % 2 == 0 && kStages >= 4),
              "WG_KSPLIT: each consumer owns every other stage, and holds one while the next fills");
static_assert(kBN % 8 == 0 && kBN <= 256 && CL2_WG_REGS % 4 == 0, "wgmma N, in 4-register operand pieces");
static_assert(!kSwapAB || CL2_LAYOUT_TN, "swapped operands: both K-major (TN)");
static_assert(kCluster <= 4, "clusters of up to 4 CTAs");
static_assert(!CL2_SPLIT_DSMEM || (CL2_SPLITK && kCluster == 1 && !CL2_STREAM_K),
              "SPLIT_DSMEM: the cluster is one tile's split-K slices, not a multicast group");
static_assert(!CL2_STREAM_K || (kCluster == 1 && !kPingpong && !CL2_SPLITK),
              "stream-K shares k-blocks between single CTAs; it replaces split-K");
static_assert(kTransB == 0 || kBN % 64 == 0, "NN loads B in 64-column chunks");
static_assert(kPair == 1 || kTransB == 0, "KB_PAIR: both operands K-major (TN)");
static_assert(kClusterM == 1 || (kTransB ? (kBN / 64) % kClusterM == 0 : (kBN / kClusterM) % 8 == 0),
              "each CTA of a tile column multicasts an equal, 1024-byte aligned share of B");
static_assert((kBM / kClusterN) % 8 == 0, "each CTA of a tile row multicasts a 1024-byte aligned share of A");

struct Cl2Work {
  int tile_m, tile_n, kb_begin, kb_end, slice;
  int order;  // the tile's place in the visiting order (stream-K finds a tile's other CTAs by it)
};

__device__ __forceinline__ int cl2_k_blocks(const Cl2GemmParams& p) { return (p.k + kBK - 1) / kBK; }

// The tile grid's extent and the tensor maps of the operands that feed wgmma's A (tile rows) and
// B (tile columns): C's M and N, A and B, or the other way round with SWAP_AB.
__device__ __forceinline__ int cl2_rows(const Cl2GemmParams& p) { return kSwapAB ? p.n : p.m; }
__device__ __forceinline__ int cl2_cols(const Cl2GemmParams& p) { return kSwapAB ? p.m : p.n; }
__device__ __forceinline__ int cl2_tiles_m(const Cl2GemmParams& p) { return (cl2_rows(p) + kBM - 1) / kBM; }
__device__ __forceinline__ int cl2_tiles_n(const Cl2GemmParams& p) { return (cl2_cols(p) + kBN - 1) / kBN; }
__device__ __forceinline__ const Cl2TensorMap* cl2_row_operand(const Cl2GemmParams& p) {
  return kSwapAB ? &p.tmap_b : &p.tmap_a;
}
__device__ __forceinline__ const Cl2TensorMap* cl2_col_operand(const Cl2GemmParams& p) {
  return kSwapAB ? &p.tmap_a : &p.tmap_b;
}

// Work item w of the cluster's sequence: slices of K outermost (so neighbouring clusters share
// A rows and B columns in L2; with SPLIT_DSMEM innermost, since one tile's slices form a cluster),
// then cluster tiles (kClusterM x kClusterN tiles) in grouped raster order; CTA (cm, cn) of the
// cluster takes tile (cm, cn) of the cluster tile. 32-bit arithmetic,
// and no slice division in kernels that do not split: the producer works out its first item before
// its first load, and with a 64-bit division there small kernels ran up to 0.3 us (10%) slower per
// call on the H200 (1024x256x12288, 64x256x256).
__device__ __forceinline__ Cl2Work cl2_work_of(const Cl2GemmParams& p, int w, int cm, int cn) {
  const int cluster_rows = (cl2_tiles_m(p) + kClusterM - 1) / kClusterM;
  const int cluster_cols = (cl2_tiles_n(p) + kClusterN - 1) / kClusterN;
  const int k_blocks = cl2_k_blocks(p);
#if CL2_SPLIT_DSMEM
  // One tile's slices are the CTAs of a cluster, consecutive in the grid, in slice order.
  const int order = w / p.split_k, slice = w - order * p.split_k;
  const int kb_begin = slice * k_blocks / p.split_k, kb_end = (slice + 1) * k_blocks / p.split_k;
#elif CL2_SPLITK
  const int per_slice = cluster_rows * cluster_cols;
  const int slice = w / per_slice, order = w - slice * per_slice;
  const int kb_begin = slice * k_blocks / p.split_k, kb_end = (slice + 1) * k_blocks / p.split_k;
#else
  const int slice = 0, order = w, kb_begin = 0, kb_end = k_blocks;
#endif
  const Cl2Tile t = cl2_tile_of(order, cluster_rows, cluster_cols, p.raster_group);
  return {t.m * kClusterM + cm, t.n * kClusterN + cn, kb_begin, kb_end, slice, order};
}

__device__ __forceinline__ int cl2_work_count(const Cl2GemmParams& p) {
  const int cluster_rows = (cl2_tiles_m(p) + kClusterM - 1) / kClusterM;
  const int cluster_cols = (cl2_tiles_n(p) + kClusterN - 1) / kClusterN;
  return cluster_rows * cluster_cols * p.split_k;
}

// Where a CTA is in its sequence of work items: every gridDim-th item of cl2_work_of, or with
// STREAM_K its equal share [at, end) of all tiles' k-blocks laid end to end, cut at tile edges
// (cl2_sm90_epilogue.cuh joins the pieces of a tile that several CTAs share).
#if CL2_STREAM_K
typedef long long Cl2WorkIndex;  // k-blocks of all tiles can pass 2^31
#else
typedef int Cl2WorkIndex;
#endif
struct Cl2Cursor {
  Cl2WorkIndex at, end;
};

#if CL2_STREAM_K
__device__ __forceinline__ long long cl2_streamk_start(const Cl2GemmParams& p, int cta) {
  const long long total = (long long)cl2_tiles_m(p) * cl2_tiles_n(p) * cl2_k_blocks(p);
  return total * cta / gridDim.x;
}
#endif

__device__ __forceinline__ Cl2Cursor cl2_first_work(const Cl2GemmParams& p) {
#if CL2_STREAM_K
  return {cl2_streamk_start(p, blockIdx.x), cl2_streamk_start(p, blockIdx.x + 1)};
#else
  return {int(blockIdx.x / kCluster), cl2_work_count(p)};
#endif
}

__device__ __forceinline__ bool cl2_next_work(const Cl2GemmParams& p, Cl2Cursor& cursor, int cm, int cn,
                                              Cl2Work& work) {
  if (cursor.at >= cursor.end) return false;
#if CL2_STREAM_K
  const int k_blocks = cl2_k_blocks(p);
  const int order = int(cursor.at / k_blocks), kb = int(cursor.at % k_blocks);
  const int kb_end = int(min((long long)k_blocks, kb + (cursor.end - cursor.at)));
  const Cl2Tile t = cl2_tile_of(order, cl2_tiles_m(p), cl2_tiles_n(p), p.raster_group);
  work = {t.m, t.n, kb, kb_end, 0, order};
  cursor.at += kb_end - kb;
#else
  work = cl2_work_of(p, cursor.at, cm, cn);
  cursor.at += int(gridDim.x / kCluster);
#endif
  return true;
}

// One K-major operand's share of k-block kb's stage: the rows [row, row + share) of each atom,
// `kRows` rows apart in shared memory. A lone CTA takes one box (3-D over both atoms with
// KB_PAIR); a multicast share goes one atom at a time, since a box lands its atoms back to back
// and the shares of a cluster interleave with each other's. kToL2: the same boxes only into the
// L2 (no destination, barrier or peers), for a load of them later.
template <int kRows, bool kMulticast, bool kToL2 = false>
__device__ __forceinline__ void cl2_load_operand(unsigned dst, const Cl2TensorMap* map, unsigned bar, int kb,
                                                 int row, unsigned short peers) {
#if CL2_KB_PAIR
  if (!kMulticast) {
    if (kToL2) cl2_tma_prefetch_3d(map, 0, row, kb * kPair);
    else cl2_tma_load_3d(dst, map, bar, 0, row, kb * kPair);
    return;
  }
#pragma unroll
  for (int atom = 0; atom < kPair; ++atom) {
    if (kToL2) cl2_tma_prefetch_3d(map, 0, row, kb * kPair + atom);
    else cl2_tma_load_3d_multicast(dst + atom * kRows * 128, map, bar, 0, row, kb * kPair + atom, peers);
  }
#else
  if (kToL2) cl2_tma_prefetch_2d(map, kb * kBK, row);
  else if (!kMulticast) cl2_tma_load_2d(dst, map, bar, kb * kBK, row);
  else cl2_tma_load_2d_multicast(dst, map, bar, kb * kBK, row, peers);
#endif
}

// ---- producer -----------------------------------------------------------------------------------
// CTA (cm, cn) has cluster rank cm + kClusterM * cn. It loads share cn of each A tile for the CTAs
// of its tile row and share cm of each B tile for those of its tile column; every CTA's full
// barrier expects whole tiles, whoever delivers them.

// The tile rows' operand (wgmma's A) of k-block kb of `work` into `stage`, completing on `bar`
// (kToL2: this CTA's share of it into the L2 alone; smem, stage, bar and peers unused).
template <bool kToL2 = false>
__device__ __forceinline__ void cl2_load_rows(const Cl2GemmParams& p, unsigned smem_a, unsigned bar, int stage,
                                              const Cl2Work& work, int kb, int cn, unsigned short a_peers) {
  constexpr int a_share = kBM / kClusterN;
  const unsigned a_dst = smem_a + stage * kABytes + cn * a_share * 128;
  const int a_row = work.tile_m * kBM + cn * a_share;
  cl2_load_operand<kBM, (kClusterN > 1), kToL2>(a_dst, cl2_row_operand(p), bar, kb, a_row, a_peers);
}

// The tile columns' operand (wgmma's B).
template <bool kToL2 = false>
__device__ __forceinline__ void cl2_load_cols(const Cl2GemmParams& p, unsigned smem_b, unsigned bar, int stage,
                                              const Cl2Work& work, int kb, int cm, unsigned short b_peers) {
  const unsigned b_stage = smem_b + stage * kBBytes;
#if CL2_LAYOUT_TN
  // B tile = kBN rows of 64 k; this CTA fetches rows [cm, cm+1) * kBN/kClusterM.
  constexpr int share = kBN / kClusterM;
  const unsigned dst = b_stage + cm * share * 128;
  const int row = work.tile_n * kBN + cm * share;
  cl2_load_operand<kBN, (kClusterM > 1), kToL2>(dst, cl2_col_operand(p), bar, kb, row, b_peers);
#else
  // B tile = kBN/64 chunks of [64 k rows][64 n]; CTA cm fetches every kClusterM-th chunk.
  for (int chunk = cm; chunk < kBN / 64; chunk += kClusterM) {
    const unsigned dst = b_stage + chunk * 8192;
    const int col = work.tile_n * kBN + chunk * 64;
    if (kToL2) cl2_tma_prefetch_2d(&p.tmap_b, col, kb * kBK);
    else if (kClusterM == 1) cl2_tma_load_2d(dst, &p.tmap_b, bar, col, kb * kBK);
    else cl2_tma_load_2d_multicast(dst, &p.tmap_b, bar, col, kb * kBK, b_peers);
  }
#endif
}

__device__ __forceinline__ void cl2_produce(const Cl2GemmParams& p, unsigned smem_a, unsigned smem_b,
                                            unsigned full, unsigned empty, int cm, int cn) {
  unsigned short a_peers = 0;
  for (int j = 0; j < kClusterN; ++j) a_peers |= (unsigned short)(1u << (cm + kClusterM * j));
  const unsigned short b_peers = (unsigned short)(((1u << kClusterM) - 1) << (kClusterM * cn));
  int it = 0;
#if CL2_PDL
  // The first ring's worth of weight tiles (the problem's B: the tile columns, or with SWAP_AB the
  // tile rows) is requested before the wait for the previous grid, so that this call's weights
  // stream in while that one finishes (its tail, once its last loads are issued, leaves DRAM
  // idle). Only the weights: the previous kernel may have written A (a layer's input is the last
  // one's output); the tuner's calls never write B, and libcl2 does not launch this way.
  int prefetched = 0;
  {
    Cl2Cursor first = cl2_first_work(p);
    Cl2Work work;
    if (cl2_next_work(p, first, cm, cn, work)) {
      prefetched = min(kStages, work.kb_end - work.kb_begin);
      for (int i = 0; i < prefetched; ++i) {
        cl2_mbar_arrive_expect_tx(full + i * 8, kABytes + kBBytes);
        if (kSwapAB) cl2_load_rows(p, smem_a, full + i * 8, i, work, work.kb_begin + i, cn, a_peers);
        else cl2_load_cols(p, smem_b, full + i * 8, i, work, work.kb_begin + i, cm, b_peers);
      }
#if CL2_PDL > 1
      // kL2Rings more rings' worth into the L2 alone: DRAM then stays busy through the previous
      // grid's tail and this grid's release from the wait, longer than one ring lasts.
      const int ahead = min((1 + kL2Rings) * kStages, work.kb_end - work.kb_begin);
      for (int i = prefetched; i < ahead; ++i) {  // the weights' share of k-block i, into the L2
        if (kSwapAB) cl2_load_rows<true>(p, 0, 0, 0, work, work.kb_begin + i, cn, 0);
        else cl2_load_cols<true>(p, 0, 0, 0, work, work.kb_begin + i, cm, 0);
      }
#endif
    }
    cl2_grid_dependency_wait();
  }
#endif
  Cl2Cursor cursor = cl2_first_work(p);
  for (Cl2Work work; cl2_next_work(p, cursor, cm, cn, work);) {
    for (int kb = work.kb_begin; kb < work.kb_end; ++kb, ++it) {
      const int stage = it % kStages;
      const unsigned bar = full + stage * 8;
#if CL2_PDL
      if (it < prefetched) {  // its weights are on their way (stage == it: the ring's first pass)
        if (kSwapAB) cl2_load_cols(p, smem_b, bar, stage, work, kb, cm, b_peers);
        else cl2_load_rows(p, smem_a, bar, stage, work, kb, cn, a_peers);
        continue;
      }
#endif
      cl2_mbar_wait(empty + stage * 8, ((it / kStages) & 1) ^ 1);
      cl2_mbar_arrive_expect_tx(bar, kABytes + kBBytes);
      cl2_load_rows(p, smem_a, bar, stage, work, kb, cn, a_peers);
      cl2_load_cols(p, smem_b, bar, stage, work, kb, cm, b_peers);
    }
  }
#if CL2_PDL
  // Every load issued: the next call's CTAs may take the SMs this grid leaves free from here on.
  cl2_launch_dependents();
#endif
  // In a cluster, this CTA may leave only once no peer can reach it: when every consumer of the
  // cluster has released every stage, no peer arrives on its barriers any more, and every multicast
  // into it has landed (its own consumers waited for them). A cluster barrier at the end of the
  // kernel instead, waited on by the idle warps all along, made 2-CTA clusters 1.4x slower on the
  // H200 (1024x1024x12288, 128x64 tiles: 73 us against 53).
  if (kCluster > 1)
    for (int i = 0; i < kStages; ++i, ++it) cl2_mbar_wait(empty + (it % kStages) * 8, ((it / kStages) & 1) ^ 1);
}

// ---- consumer: main loop ------------------------------------------------------------------------
// Frees a stage: one arrival per consumer warp on the barrier of every CTA of the cluster (each
// may have multicast into it).
__device__ __forceinline__ void cl2_release(unsigned empty, int stage, int lane) {
  const unsigned bar = empty + stage * 8;
  if (kCluster == 1) {
    if (lane == 0) cl2_mbar_arrive(bar);
  } else if (lane < kCluster) {
    cl2_mbar_arrive_cluster(bar, unsigned(lane));
  }
}

__device__ __forceinline__ void cl2_mma_k_block(Cl2Acc (&acc)[kChains][kSlices][CL2_WG_REGS], unsigned a_stage,
                                                unsigned b_stage, int consumer) {
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
    const int atom = kk / 4, step = kk % 4;  // 16-wide k steps, four to an atom
#if CL2_LAYOUT_TN
    const unsigned long long desc_b = cl2_sw128_desc(b_stage + atom * kBN * 128 + step * 32, 16, 1024);
#else
    // N-major: 64-column chunks 8192 bytes apart (leading), 8-row k groups 1024 apart (stride).
    const unsigned long long desc_b = cl2_sw128_desc(b_stage + kk * 16 * 128, 8192, 1024);
#endif
#pragma unroll
    for (int s = 0; s < kSlices; ++s) {
      const unsigned rows = a_stage + (atom * kBM + (kWholeTile ? 0 : consumer * kWgRows) + s * 64) * 128;
      cl2_wgmma<kTransB>(acc[kk % kChains][s], cl2_sw128_desc(rows + step * 32, 16, 1024), desc_b);
    }
  }
}

#include "cl2_sm90_epilogue.cuh"

__device__ __forceinline__ void cl2_fence_chains(Cl2Acc (&chains)[kChains][kSlices][CL2_WG_REGS]) {
#pragma unroll
  for (int c = 0; c < kChains; ++c)
#pragma unroll
    for (int s = 0; s < kSlices; ++s) cl2_wgmma_fence_operands(chains[c][s]);
}

// chains[0] += chains[1] + ..., in a fixed order (results stay bit-identical run to run).
__device__ __forceinline__ void cl2_add_chains(Cl2Acc (&chains)[kChains][kSlices][CL2_WG_REGS]) {
#pragma unroll
  for (int c = 1; c < kChains; ++c)
#pragma unroll
    for (int s = 0; s < kSlices; ++s)
#pragma unroll
      for (int i = 0; i < CL2_WG_REGS; ++i) cl2_acc_add(chains[0][s][i], chains[c][s][i]);
}

__device__ __forceinline__ void cl2_consume(const Cl2GemmParams& p, unsigned smem_a, unsigned smem_b,
                                            unsigned staging, unsigned exchange, unsigned full,
                                            unsigned empty, unsigned order, int cm, int cn, int consumer) {
  const int thread = threadIdx.x % 128, warp = thread / 32, lane = thread % 32;
  const int tiles_m = cl2_tiles_m(p), tiles_n = cl2_tiles_n(p);
#if CL2_PDL
  cl2_grid_dependency_wait();  // C and the split-K workspace may still be in the previous grid's use
#endif
  Cl2Acc chains[kChains][kSlices][CL2_WG_REGS];
  Cl2Acc (&acc)[kSlices][CL2_WG_REGS] = chains[0];  // what the epilogue reads, once the chains are added
  if (kWgSplitK && consumer == 0) cl2_named_arrive<kBarrierExchangeFree, 256>();  // buffer starts free
  int it = 0, local = 0, turns = 0;
  Cl2Cursor cursor = cl2_first_work(p);
  for (Cl2Work work; cl2_next_work(p, cursor, cm, cn, work); ++local) {
    if (kPingpong && local % 2 != consumer) {  // the other consumer's tile: skip its stages
      it += work.kb_end - work.kb_begin;
      continue;
    }
#pragma unroll
    for (int c = 0; c < kChains; ++c)
#pragma unroll
      for (int s = 0; s < kSlices; ++s)
#pragma unroll
        for (int i = 0; i < CL2_WG_REGS; ++i) chains[c][s][i] = 0;
    // Ping-pong: main loops take turns. Waiting on a stage's barrier by parity is only sound for a
    // consumer at most one phase ahead of it, so a consumer starts a tile's stages only once the
    // other has waited on all of its own (the producer then cannot be a full ring behind).
    // WG_KSPLIT needs no turns: with an even ring, consumer c owns the stages of parity c and waits
    // on every phase of each.
    if (kPingpong) cl2_mbar_wait(order + consumer * 8, turns++ & 1);
    int held = -1;  // stage still read by the wgmma group in flight
    for (int kb = work.kb_begin; kb < work.kb_end; ++kb, ++it) {
      if (kWgSplitK && it % 2 != consumer) continue;
      const int stage = it % kStages;
      cl2_mbar_wait(full + stage * 8, (it / kStages) & 1);
      cl2_fence_chains(chains);
      cl2_wgmma_fence();
      cl2_mma_k_block(chains, smem_a + stage * kABytes, smem_b + stage * kBBytes, consumer);
      cl2_wgmma_commit();
      cl2_wgmma_wait<1>();  // the previous k-block's group is done with its stage
      if (held >= 0) cl2_release(empty, held, lane);
      held = stage;
    }
    if (kPingpong && thread == 0) cl2_mbar_arrive(order + (1 - consumer) * 8);  // the other's turn
    cl2_wgmma_wait<0>();
    cl2_fence_chains(chains);
    cl2_add_chains(chains);
    if (held >= 0) cl2_release(empty, held, lane);
    if (work.tile_m >= tiles_m || work.tile_n >= tiles_n) continue;  // a cluster's padding CTA
    if (kWgSplitK) {
      if (consumer == 1) {  // hand the partial over and go on to the next tile
        cl2_exchange_give(acc, exchange, thread);
        continue;
      }
      cl2_exchange_take(acc, exchange, thread);
    }
#if CL2_STREAM_K
    if (!cl2_streamk_join(p, acc, work, kWgSplitK ? 0 : consumer, thread)) continue;  // the owner writes it
#endif
#if CL2_BIAS
    // Once per tile: split-K's slice 0 (the others' partials are added to its own), stream-K's owner.
    if (work.slice == 0)
      cl2_add_bias(p, acc, work.tile_m * kBM + (kWholeTile ? 0 : consumer * kWgRows), work.tile_n * kBN, warp, lane);
#endif
#if CL2_SPLITK
    cl2_store_split(p, acc, work, smem_a, consumer, thread, warp, lane);
#else
    const int row0 = work.tile_m * kBM + (kWholeTile ? 0 : consumer * kWgRows), col0 = work.tile_n * kBN;
#if CL2_EPI_TMA
    cl2_store_tma(p, acc, staging, row0, col0, consumer, thread, warp, lane);
#else
    cl2_store_direct(p, acc, row0, col0, warp, lane);
#endif
#endif
  }
  if (kWgSplitK && consumer == 1) cl2_named_sync<kBarrierExchangeFree, 256>();  // pairs the last free
#if CL2_EPI_TMA
  // Shared memory must outlive the stores' reads of it; their writes to C need no wait, since the
  // grid's completion makes them visible, and waiting for them kept each CTA alive an L2 round trip
  // longer.
  if (thread == 0) cl2_tma_store_wait_read();
#endif
  (void)staging;
  (void)exchange;
}

extern "C" __global__ void __launch_bounds__(kThreads, 1) cl2_gemm(const __grid_constant__ Cl2GemmParams p) {
  extern __shared__ unsigned char cl2_smem[];
  // Swizzled tiles must start on 1024-byte boundaries; the launch reserves the slack.
  const unsigned raw = cl2_smem_addr(cl2_smem);
  const unsigned base = (raw + 1023u) & ~1023u;
  const unsigned smem_a = base;
  const unsigned smem_b = smem_a + kStages * kABytes;
  const unsigned staging = smem_b + kStages * kBBytes;
  const unsigned exchange = staging + kEpiConsumers * kCBytes;
  const unsigned full = exchange + kExchangeBytes;
  const unsigned empty = full + kStages * 8;
  const unsigned order = empty + kStages * 8;  // ping-pong turn barriers, one per consumer
  const int rank = kCluster > 1 ? int(cl2_cluster_rank()) : 0;
  const int cm = rank % kClusterM, cn = rank / kClusterM;

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

  // Warp-uniform to the compiler (a shuffle from lane 0), so that everything derived from it, the
  // wgmma descriptors above all, lives in uniform registers: computed per thread, each descriptor
  // needed an R2UR move that the next wgmma waited for.
  const int warpgroup = __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0);
  if (warpgroup == 0) {
    if (kConsumers == 2) cl2_regs_release<40>();
    if (threadIdx.x == 0) cl2_produce(p, smem_a, smem_b, full, empty, cm, cn);
  } else {
    if (kConsumers == 2) cl2_regs_claim<232>();
    const int consumer = warpgroup - 1;
    cl2_consume(p, smem_a, smem_b, staging + consumer * kCBytes, exchange, full, empty, order, cm, cn,
                consumer);
  }
}
