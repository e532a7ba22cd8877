// Device helpers shared by the template families: fp16 packing, tile rasterization and the
// split-K reduction protocol. Generated sources inline this file where a template includes it.
__device__ __forceinline__ unsigned cl2_pack_half2(float lo, float hi) {
  unsigned packed;
  // cvt.rn.f16x2.f32 puts its first source in the upper half.
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

__device__ __forceinline__ unsigned short cl2_float_to_half(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

__device__ __forceinline__ float cl2_half_to_float(unsigned short bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}

// Unpacks a half2 register (lower half = first element) into floats; used by fp16 accumulators.
__device__ __forceinline__ void cl2_unpack_half2(unsigned packed, float& lo, float& hi) {
  lo = cl2_half_to_float((unsigned short)(packed & 0xffffu));
  hi = cl2_half_to_float((unsigned short)(packed >> 16));
}

// What a bias adds to C's column col: bias[col], nothing past N (a tile's columns beyond C).
__device__ __forceinline__ float cl2_bias_at(const Cl2GemmParams& p, int col) {
  return col < p.n ? cl2_half_to_float(p.bias[col]) : 0.f;
}

struct Cl2Tile {
  int m, n;  // tile coordinates (row block, column block)
};

// Maps a linear tile index to tile coordinates, walking `group` tile rows at a time and going
// down the rows of a group before moving right: consecutive CTAs then share B columns and A rows
// in L2. group == 1 is plain row-major order.
__device__ __forceinline__ Cl2Tile cl2_tile_of(int linear, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_m = (linear / per_group) * group;
  const int rows = min(tiles_m - first_m, group);
  const int in_group = linear % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

// Split-K: the K range is cut into p.split_k slices whose CTAs meet through the workspace: one
// int counter per output tile (padded to 256 bytes), then split_k fp32 partial tiles per output
// tile, row-major. Every slice stores its whole partial (edges included) and the partials are
// added in slice order, so the result does not depend on which slice finishes first: split-K
// results are bit-identical run to run. Two ways to meet: the last slice to arrive reduces the
// whole tile (cl2_splitk_arrive, sm80: safe whatever the grid), or every slice waits for the
// others and reduces its 1/split_k share (cl2_splitk_meet, sm90: only for grids of one wave).
__device__ __forceinline__ int* cl2_splitk_counters(const Cl2GemmParams& p) {
  return reinterpret_cast<int*>(p.workspace);
}

__device__ __forceinline__ float* cl2_splitk_partial(const Cl2GemmParams& p, int tiles, int tile,
                                                     int slice, int tile_elems) {
  char* base = reinterpret_cast<char*>(p.workspace) + ((tiles * 4 + 255) / 256) * 256;
  return reinterpret_cast<float*>(base) + ((long long)tile * p.split_k + slice) * tile_elems;
}

__device__ __forceinline__ void cl2_st_global_f32x2(float* dst, float x, float y) {
  asm volatile("st.global.v2.f32 [%0], {%1, %2};\n" ::"l"(dst), "f"(x), "f"(y) : "memory");
}

// 16-byte load that bypasses L1: split-K partials are written by other SMs.
__device__ __forceinline__ void cl2_ld_cg_f32x4(const float* src, float (&v)[4]) {
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
               : "l"(src)
               : "memory");
}

// Called by all `threads` threads of the group that stored the partials (named barrier
// `barrier_id`); returns true in every thread of the CTA that must reduce the tile.
template <int threads, int barrier_id>
__device__ __forceinline__ bool cl2_splitk_arrive(const Cl2GemmParams& p, int tile, int* flag_smem,
                                                  int group_thread) {
  __threadfence();  // make this thread's partials visible before the counter moves
  asm volatile("bar.sync %0, %1;" ::"n"(barrier_id), "n"(threads) : "memory");
  if (group_thread == 0) {
    const int arrived = atomicAdd(cl2_splitk_counters(p) + tile, 1);
    const bool last = arrived == p.split_k - 1;
    if (last) cl2_splitk_counters(p)[tile] = 0;  // every other slice has arrived: safe to reset
    *flag_smem = last;
  }
  asm volatile("bar.sync %0, %1;" ::"n"(barrier_id), "n"(threads) : "memory");
  const bool last = *flag_smem != 0;
  if (last) __threadfence();  // order the reads of other slices' partials after the count
  return last;
}

// Returns once every slice of `tile` has stored its partial. The counter first counts the slices
// that stored, then (from split_k on) the slices that saw it complete; the last of those resets
// it for the next launch, when no slice can still be reading it. Every slice of the tile must be
// resident at once, or the first ones wait forever: callers plan split-K grids of one wave.
template <int threads, int barrier_id>
__device__ __forceinline__ void cl2_splitk_meet(const Cl2GemmParams& p, int tile, int group_thread) {
  __threadfence();  // this thread's partial is visible before the counter moves
  asm volatile("bar.sync %0, %1;" ::"n"(barrier_id), "n"(threads) : "memory");
  if (group_thread == 0) {
    int* counter = cl2_splitk_counters(p) + tile;
    atomicAdd(counter, 1);
    int stored;
    do {
      asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(stored) : "l"(counter) : "memory");
    } while (stored < p.split_k);
    if (atomicAdd(counter, 1) == 2 * p.split_k - 1) *counter = 0;
    __threadfence();  // order the group's reads of the partials after the count
  }
  asm volatile("bar.sync %0, %1;" ::"n"(barrier_id), "n"(threads) : "memory");
}

// Four consecutive values of one row of C, as fp16: one 8-byte store where the row holds all four
// and the address allows it, else element by element up to the edge.
__device__ __forceinline__ void cl2_store_quad(const Cl2GemmParams& p, int row, int col, const float (&v)[4]) {
  if (row >= p.m || col >= p.n) return;
  unsigned short* out = p.c + (long long)row * p.ldc + col;
  if (col + 3 < p.n && (reinterpret_cast<unsigned long long>(out) & 7ull) == 0) {
    *reinterpret_cast<uint2*>(out) = make_uint2(cl2_pack_half2(v[0], v[1]), cl2_pack_half2(v[2], v[3]));
  } else {
    for (int i = 0; i < 4 && col + i < p.n; ++i) out[i] = cl2_float_to_half(v[i]);
  }
}

// Adds the slices' partials of a tile over its 4-column groups [begin, end) (row-major, tile_cols
// / 4 per row) in slice order and writes them to C at (row0, col0); load(slice, group, v) reads a
// group of one slice's partial, wherever the partials are (global workspace, or the shared memory
// of the cluster's CTAs). Consecutive threads take consecutive groups, so partial reads and C
// stores coalesce. Each pass loads `quads` groups of `slices` slices at once before adding them in
// order: a loop that waits for each slice's load before the next is a chain of split_k dependent
// L2 round trips, which made the reduction, not the GEMM, the cost of a split (sm90 reduces small
// shares of many slices: many slices in flight; sm80 whole tiles of few: many groups).
template <int threads, int quads, int slices, typename Load>
__device__ __forceinline__ void cl2_splitk_reduce(const Cl2GemmParams& p, int tile_cols, int row0, int col0,
                                                  int begin, int end, int group_thread, Load load) {
#pragma unroll 1
  for (int q0 = begin + group_thread; q0 < end; q0 += threads * quads) {
    float sum[quads][4];
#pragma unroll
    for (int j = 0; j < quads; ++j) sum[j][0] = sum[j][1] = sum[j][2] = sum[j][3] = 0.f;
#pragma unroll 1
    for (int s0 = 0; s0 < p.split_k; s0 += slices) {
      float v[slices][quads][4];
#pragma unroll
      for (int s = 0; s < slices; ++s)
#pragma unroll
        for (int j = 0; j < quads; ++j)
          if (s0 + s < p.split_k && q0 + j * threads < end) load(s0 + s, q0 + j * threads, v[s][j]);
#pragma unroll
      for (int s = 0; s < slices; ++s)
#pragma unroll
        for (int j = 0; j < quads; ++j)
#pragma unroll
          for (int i = 0; i < 4; ++i)
            if (s0 + s < p.split_k) sum[j][i] += v[s][j][i];
    }
#pragma unroll
    for (int j = 0; j < quads; ++j) {
      const int quad = q0 + j * threads;
      if (quad < end) cl2_store_quad(p, row0 + quad / (tile_cols / 4), col0 + quad % (tile_cols / 4) * 4, sum[j]);
    }
  }
}

// The loader of cl2_splitk_reduce for partials in the global workspace: a tile_elems-sized partial
// per slice of `tile`, row-major.
struct Cl2WorkspacePartials {
  const Cl2GemmParams& p;
  int tiles, tile, tile_elems;
  __device__ __forceinline__ void operator()(int slice, int group, float (&v)[4]) const {
    cl2_ld_cg_f32x4(cl2_splitk_partial(p, tiles, tile, slice, tile_elems) + group * 4, v);
  }
};
