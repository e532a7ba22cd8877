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

// Split-K: the K range is cut into p.split_k slices, whose CTAs meet through the workspace: one
// int counter per output tile (padded to 256 bytes) that each slice increments and the last
// resets for the next launch (cl2_splitk_arrive), then either split_k partial tiles per output
// tile that the last slice adds in slice order, so the result does not depend on arrival order
// (cl2_splitk_partial, sm80), or one fp32 sum per tile (cl2_splitk_sum_tile, below, sm90).
__device__ __forceinline__ int* cl2_splitk_counters(const Cl2GemmParams& p) {
  return reinterpret_cast<int*>(p.workspace);
}

__device__ __forceinline__ float* cl2_splitk_partial(const Cl2GemmParams& p, int tiles, int tile,
                                                     int slice, int tile_elems) {
  char* base = reinterpret_cast<char*>(p.workspace) + ((tiles * 4 + 255) / 256) * 256;
  return reinterpret_cast<float*>(base) + ((long long)tile * p.split_k + slice) * tile_elems;
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

// Split-K by accumulation (used where many slices meet: reading every slice back in one CTA is
// latency-bound). Each slice adds its partial into one fp32 tile of the workspace with atomic adds
// (fire-and-forget, so all slices' traffic is in flight at once) and counts itself in the tile's
// counter; the last converts the sum to fp16 and zeroes the tile for the next launch. The order
// in which slices add is not fixed, so results may differ between runs in the last fp32 bit.
// Workspace: one counter per tile (padded to 256 bytes), then one fp32 tile per output tile.
__device__ __forceinline__ float* cl2_splitk_sum_tile(const Cl2GemmParams& p, int tiles, int tile,
                                                      int tile_elems) {
  char* base = reinterpret_cast<char*>(p.workspace) + ((tiles * 4 + 255) / 256) * 256;
  return reinterpret_cast<float*>(base) + (long long)tile * tile_elems;
}

template <int threads>
__device__ __forceinline__ void cl2_splitk_finish(const Cl2GemmParams& p, int tiles, int tile,
                                                  int tile_rows, int tile_cols, int row0, int col0,
                                                  int group_thread) {
  float4* sums = reinterpret_cast<float4*>(cl2_splitk_sum_tile(p, tiles, tile, tile_rows * tile_cols));
  const bool wide_ok = (p.ldc & 3) == 0;
  for (int chunk = group_thread; chunk < tile_rows * tile_cols / 4; chunk += threads) {
    const float4 sum = __ldcg(sums + chunk);
    __stcg(sums + chunk, make_float4(0.f, 0.f, 0.f, 0.f));
    const int row = row0 + chunk * 4 / tile_cols, col = col0 + chunk * 4 % tile_cols;
    if (row >= p.m || col >= p.n) continue;
    unsigned short* out = p.c + (long long)row * p.ldc + col;
    if (wide_ok && col + 3 < p.n) {
      *reinterpret_cast<uint2*>(out) = make_uint2(cl2_pack_half2(sum.x, sum.y), cl2_pack_half2(sum.z, sum.w));
    } else {
      const float v[4] = {sum.x, sum.y, sum.z, sum.w};
      for (int i = 0; i < 4 && col + i < p.n; ++i) out[i] = cl2_float_to_half(v[i]);
    }
  }
}
