// sm90 family, consumer side after the main loop: partial accumulators handed between the two
// consumers (WG_KSPLIT) and between the CTAs that share a tile (stream-K), and the three ways to
// write C (direct stores, TMA stores through a swizzled staging buffer, split-K through the
// workspace). Inlined into sm90_hgemm.cuh after its
// constants, whose names it uses.
//
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

// Calls visit(s, j, h, row, col) for every pair of adjacent columns a consumer holds (slice s,
// 8-column block j, half h), rows and columns counted from the consumer's first row of the tile.
template <typename Visit>
__device__ __forceinline__ void cl2_for_each_pair_slot(int warp, int lane, Visit visit) {
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) visit(s, j, h, s * 64 + warp * 16 + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4));
}

// Calls visit(row, col, lo, hi) for every pair of adjacent columns a consumer holds.
template <typename Visit>
__device__ __forceinline__ void cl2_for_each_pair(const Cl2Acc (&acc)[kSlices][CL2_WG_REGS], int warp, int lane,
                                                  Visit visit) {
  cl2_for_each_pair_slot(warp, lane, [&](int s, int j, int h, int row, int col) {
    float lo, hi;
    cl2_pair(acc[s], j, h, lo, hi);
    visit(row, col, lo, hi);
  });
}

__device__ __forceinline__ unsigned cl2_pair_half2(const Cl2Acc (&acc)[CL2_WG_REGS], int j, int h) {
#if CL2_ACCUM_F16
  return acc[2 * j + h];
#else
  return cl2_pack_half2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
#endif
}

// ---- adding partial accumulators (chains of one consumer; WG_KSPLIT's two consumers) ----------
__device__ __forceinline__ unsigned cl2_acc_bits(Cl2Acc value) {
#if CL2_ACCUM_F16
  return value;
#else
  return __float_as_uint(value);
#endif
}

__device__ __forceinline__ void cl2_acc_add_bits(Cl2Acc& acc, unsigned bits) {
#if CL2_ACCUM_F16
  asm("add.rn.f16x2 %0, %0, %1;" : "+r"(acc) : "r"(bits));
#else
  acc += __uint_as_float(bits);
#endif
}

__device__ __forceinline__ void cl2_acc_add(Cl2Acc& acc, Cl2Acc other) { cl2_acc_add_bits(acc, cl2_acc_bits(other)); }

#if CL2_BIAS
// Adds lo and hi to the pair cl2_pair reads, in the accumulator's precision.
__device__ __forceinline__ void cl2_pair_add(Cl2Acc (&acc)[CL2_WG_REGS], int j, int h, float lo, float hi) {
#if CL2_ACCUM_F16
  cl2_acc_add_bits(acc[2 * j + h], cl2_pack_half2(lo, hi));
#else
  acc[4 * j + 2 * h] += lo;
  acc[4 * j + 2 * h + 1] += hi;
#endif
}
#endif

// ---- partial sums in fragment order --------------------------------------------------------------
// Registers 4i..4i+3 of slice s of thread t sit at 16-byte unit (s * CL2_WG_REGS + i) / 4 * 128 + t:
// a warp's accesses cover 512 contiguous bytes, coalesced in global memory and free of bank
// conflicts in shared memory. Partial sums travel this way between the two consumers (WG_KSPLIT)
// and between CTAs (stream-K); `store4(unit, x, y, z, w)` and `load4(unit, v)` say where.
constexpr int kFragmentUnits = kSlices * CL2_WG_REGS / 4 * 128;  // 16-byte units per consumer

template <typename Store4>
__device__ __forceinline__ void cl2_put_fragments(const Cl2Acc (&acc)[kSlices][CL2_WG_REGS], int thread,
                                                  Store4 store4) {
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int i = 0; i < CL2_WG_REGS; i += 4)
      store4((s * CL2_WG_REGS + i) / 4 * 128 + thread, cl2_acc_bits(acc[s][i]), cl2_acc_bits(acc[s][i + 1]),
             cl2_acc_bits(acc[s][i + 2]), cl2_acc_bits(acc[s][i + 3]));
}

template <typename Load4>
__device__ __forceinline__ void cl2_add_fragments(Cl2Acc (&acc)[kSlices][CL2_WG_REGS], int thread, Load4 load4) {
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int i = 0; i < CL2_WG_REGS; i += 4) {
      unsigned v[4];
      load4((s * CL2_WG_REGS + i) / 4 * 128 + thread, v);
#pragma unroll
      for (int j = 0; j < 4; ++j) cl2_acc_add_bits(acc[s][i + j], v[j]);
    }
}

#if CL2_WG_KSPLIT
__device__ __forceinline__ void cl2_exchange_give(const Cl2Acc (&acc)[kSlices][CL2_WG_REGS], unsigned buffer,
                                                  int thread) {
  cl2_named_sync<kBarrierExchangeFree, 256>();
  cl2_put_fragments(acc, thread, [&](int unit, unsigned x, unsigned y, unsigned z, unsigned w) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(buffer + unit * 16), "r"(x), "r"(y), "r"(z),
                 "r"(w)
                 : "memory");
  });
  cl2_named_arrive<kBarrierExchangeReady, 256>();
}

__device__ __forceinline__ void cl2_exchange_take(Cl2Acc (&acc)[kSlices][CL2_WG_REGS], unsigned buffer,
                                                  int thread) {
  cl2_named_sync<kBarrierExchangeReady, 256>();
  cl2_add_fragments(acc, thread, [&](int unit, unsigned (&v)[4]) {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                 : "r"(buffer + unit * 16)
                 : "memory");
  });
  cl2_named_arrive<kBarrierExchangeFree, 256>();
}
#else
__device__ __forceinline__ void cl2_exchange_give(const Cl2Acc (&)[kSlices][CL2_WG_REGS], unsigned, int) {}
__device__ __forceinline__ void cl2_exchange_take(Cl2Acc (&)[kSlices][CL2_WG_REGS], unsigned, int) {}
#endif

// ---- stream-K -----------------------------------------------------------------------------------
#if CL2_STREAM_K
// A tile whose k-blocks fall to several CTAs is finished by the CTA holding its first k-blocks, its
// owner: they come last in that CTA's share, so it gets there last. Every other CTA holds its piece
// of the tile at the start of its share (or its whole share lies inside the tile): it stores its
// partial sums in its own slot, raises its flag and goes on without waiting. The owner waits for
// the flags of the CTAs after it, adds their partials in CTA order (so results are bit-identical run
// to run) and lowers the flags for the next launch. Owners wait only on CTAs that never wait, so
// the grid need only be resident at once (planned: one wave). Workspace: one flag per CTA (padded
// to 256 bytes), then one partial tile per CTA.
__device__ __forceinline__ int* cl2_streamk_flag(const Cl2GemmParams& p, int cta) {
  return reinterpret_cast<int*>(p.workspace) + cta;
}

__device__ __forceinline__ unsigned* cl2_streamk_partial(const Cl2GemmParams& p, int cta, int consumer) {
  char* slots = reinterpret_cast<char*>(p.workspace) + (gridDim.x * 4 + 255) / 256 * 256;
  return reinterpret_cast<unsigned*>(slots) + ((long long)cta * kEpiConsumers + consumer) * kFragmentUnits * 4;
}

// Returns whether this CTA writes the tile: false where it handed its piece to the owner.
__device__ __forceinline__ bool cl2_streamk_join(const Cl2GemmParams& p, Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                 const Cl2Work& work, int consumer, int thread) {
  constexpr int group = kEpiConsumers * 128;  // the consumers that write C
  constexpr int barrier = kEpiConsumers == 2 ? kBarrierSplitK : 2;
  const int group_thread = consumer * 128 + thread;
  const int k_blocks = cl2_k_blocks(p);
  if (work.kb_begin != 0) {
    unsigned* slot = cl2_streamk_partial(p, blockIdx.x, consumer);
    cl2_put_fragments(acc, thread, [&](int unit, unsigned x, unsigned y, unsigned z, unsigned w) {
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(slot + unit * 4), "r"(x), "r"(y), "r"(z), "r"(w)
                   : "memory");
    });
    __threadfence();  // this thread's partial is visible before the flag rises
    cl2_named_sync<barrier, group>();
    if (group_thread == 0)
      asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(cl2_streamk_flag(p, blockIdx.x)), "r"(1) : "memory");
    return false;
  }
  const long long tile_end = (long long)(work.order + 1) * k_blocks;
  for (int cta = blockIdx.x + 1; work.kb_end < k_blocks && cta < gridDim.x && cl2_streamk_start(p, cta) < tile_end;
       ++cta) {
    if (group_thread == 0) {
      int raised;
      do {
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(raised) : "l"(cl2_streamk_flag(p, cta)) : "memory");
      } while (raised == 0);
      *cl2_streamk_flag(p, cta) = 0;  // read by no one else in this launch
      __threadfence();                // order the group's reads of the partial after the flag
    }
    cl2_named_sync<barrier, group>();
    const unsigned* slot = cl2_streamk_partial(p, cta, consumer);
    cl2_add_fragments(acc, thread, [&](int unit, unsigned (&v)[4]) {
      asm volatile("ld.global.cg.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                   : "l"(slot + unit * 4)
                   : "memory");
    });
  }
  return true;
}
#endif

// ---- bias ---------------------------------------------------------------------------------------
#if CL2_BIAS
// Adds bias[n] to every element of C's column n: a tile column, or with SWAP_AB (the tile holds C
// transposed) a tile row. In the accumulators, before any store, so that every way of writing C
// (and split-K's partials, where slice 0 alone adds it) carries it.
__device__ __forceinline__ void cl2_add_bias(const Cl2GemmParams& p, Cl2Acc (&acc)[kSlices][CL2_WG_REGS], int row0,
                                             int col0, int warp, int lane) {
  cl2_for_each_pair_slot(warp, lane, [&](int s, int j, int h, int row, int col) {
#if CL2_SWAP_AB
    const float value = cl2_bias_at(p, row0 + row);
    cl2_pair_add(acc[s], j, h, value, value);
#else
    cl2_pair_add(acc[s], j, h, cl2_bias_at(p, col0 + col), cl2_bias_at(p, col0 + col + 1));
#endif
  });
}
#endif

// ---- direct stores ------------------------------------------------------------------------------
// Tile element (row, col) and its right neighbour, in the kernel's coordinates.
__device__ __forceinline__ void cl2_store_pair(const Cl2GemmParams& p, int row, int col, float lo,
                                               float hi) {
#if CL2_SWAP_AB
  // C[col][row] and C[col + 1][row]: eight lanes of a warp write 16 contiguous bytes of a C row.
  if (row >= p.n || col >= p.m) return;
  unsigned short* out = p.c + (long long)col * p.ldc + row;
  out[0] = cl2_float_to_half(lo);
  if (col + 1 < p.m) out[p.ldc] = cl2_float_to_half(hi);
#else
  if (row >= p.m || col >= p.n) return;
  unsigned short* out = p.c + (long long)row * p.ldc + col;
  if (col + 1 < p.n && (p.ldc & 1) == 0) {
    *reinterpret_cast<unsigned*>(out) = cl2_pack_half2(lo, hi);
  } else {
    out[0] = cl2_float_to_half(lo);
    if (col + 1 < p.n) out[1] = cl2_float_to_half(hi);
  }
#endif
}

__device__ __forceinline__ void cl2_store_direct(const Cl2GemmParams& p,
                                                 const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                 int row0, int col0, int warp, int lane) {
  cl2_for_each_pair(acc, warp, lane, [&](int row, int col, float lo, float hi) {
    cl2_store_pair(p, row0 + row, col0 + col, lo, hi);
  });
}

// ---- TMA stores ---------------------------------------------------------------------------------
#if CL2_EPI_TMA
// Chunks go through the consumer's staging buffer in the TMA swizzle of their row width (128, 64
// or 32 bytes; 16-byte rows are not swizzled), which also keeps the stores free of bank conflicts:
// the 16-byte unit u of row r sits at unit u ^ (bits 7 and up of r's offset, one per unit bit).
__device__ __forceinline__ int cl2_epi_unit(int unit, int row) {
  return unit ^ ((row * kEpiRowBytes >> 7) & (kEpiRowBytes / 16 - 1));
}

// EPI_TMA=1 stages one chunk at a time, each waiting for the last to leave shared memory. EPI_TMA=2
// stages the whole tile at once and leaves its stores in flight: the wait falls in the next tile's
// epilogue, by when they are long done, so the tensor cores resume after the shared-memory writes
// alone (a tile-sized buffer in place of ring stages; it pays where the epilogue recurs often,
// short K and many tiles per CTA).
//
// SWAP_AB: chunk s is wgmma slice s, stored transposed (its rows are C's columns) as kBN rows of C
// by 64 columns, one 16-bit store per element: eight lanes fill one 16-byte unit of a row, and the
// four rows a store instruction reaches sit in different units, so the stores are free of bank
// conflicts too.
__device__ __forceinline__ void cl2_stage_swapped(const Cl2Acc (&slice)[CL2_WG_REGS], unsigned chunk, int warp,
                                                  int lane) {
#pragma unroll
  for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float v[2];
      cl2_pair(slice, j, h, v[0], v[1]);
      const int unit = warp * 2 + h;  // 16-byte unit of the C row: tile rows warp * 16 + 8h ..
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c_row = 8 * j + 2 * (lane % 4) + e;
        const unsigned addr = chunk + c_row * kEpiRowBytes + (cl2_epi_unit(unit, c_row) << 4) + (lane / 4) * 2;
        asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(cl2_float_to_half(v[e])) : "memory");
      }
    }
}

__device__ __forceinline__ void cl2_store_tma(const Cl2GemmParams& p,
                                              const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                              unsigned staging, int row0, int col0, int consumer,
                                              int thread, int warp, int lane) {
#if CL2_SWAP_AB
#pragma unroll
  for (int first = 0; first < kEpiChunks; first += kEpiBatch) {
    if (thread == 0) cl2_tma_store_wait_read();  // the buffer's previous contents have left
    cl2_warpgroup_barrier(2 + consumer);
#pragma unroll
    for (int c = 0; c < kEpiBatch; ++c) cl2_stage_swapped(acc[first + c], staging + c * kEpiChunkBytes, warp, lane);
    cl2_fence_async_shared();
    cl2_warpgroup_barrier(2 + consumer);
    if (thread == 0) {
#pragma unroll
      for (int c = 0; c < kEpiBatch; ++c)
        cl2_tma_store_2d(&p.tmap_c, staging + c * kEpiChunkBytes, row0 + (first + c) * 64, col0);
      cl2_tma_store_commit();
    }
  }
#else
#pragma unroll
  for (int first = 0; first < kEpiChunks; first += kEpiBatch) {
    if (thread == 0) cl2_tma_store_wait_read();  // the buffer's previous contents have left
    cl2_warpgroup_barrier(2 + consumer);
#pragma unroll
    for (int c = 0; c < kEpiBatch; ++c)
#pragma unroll
      for (int s = 0; s < kSlices; ++s)
#pragma unroll
        for (int u = 0; u < kEpiCols / 8; ++u)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = s * 64 + warp * 16 + lane / 4 + 8 * h;
            const unsigned addr =
                staging + c * kEpiChunkBytes + row * kEpiRowBytes + (cl2_epi_unit(u, row) << 4) + (lane % 4) * 4;
            const unsigned pair = cl2_pair_half2(acc[s], (first + c) * (kEpiCols / 8) + u, h);
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(pair) : "memory");
          }
    cl2_fence_async_shared();
    cl2_warpgroup_barrier(2 + consumer);
    if (thread == 0) {
#pragma unroll
      for (int c = 0; c < kEpiBatch; ++c)
        cl2_tma_store_2d(&p.tmap_c, staging + c * kEpiChunkBytes, col0 + (first + c) * kEpiCols, row0);
      cl2_tma_store_commit();
    }
  }
#endif
}
#endif

// ---- split-K ------------------------------------------------------------------------------------
#if CL2_SPLITK
// This slice stores its fp32 partial tile, meets the tile's other slices, then adds the slices'
// partials over its 1/split_k share of the tile and writes that share of C (cl2_splitk_reduce).
// The partials go through the workspace (row-major, two columns per 8-byte store; the slices meet
// on a counter there), or with SPLIT_DSMEM through shared memory: the slices of a tile are the CTAs
// of a cluster, each leaves its partial in its own ring (free once every wgmma of the tile is
// done), and a share is read from each peer's shared memory. That spares the L2 round trips of
// writing, fencing, counting and reading the partials back. The consumers that write C form the
// group: both in cooperative mode, consumer 0 alone with WG_KSPLIT (it holds the whole tile).
// Split-K is never planned with ping-pong (which needs several tiles per CTA).
__device__ __forceinline__ void cl2_store_split(const Cl2GemmParams& p,
                                                const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                const Cl2Work& work, unsigned ring, int consumer, int thread,
                                                int warp, int lane) {
  static_assert(!kPingpong, "split-K tiles are not shared out by turns");
  const int tiles_n = cl2_tiles_n(p);
  const int tiles = cl2_tiles_m(p) * tiles_n;
  const int tile = work.tile_m * tiles_n + work.tile_n;
  const int first_row = kWholeTile ? 0 : consumer * kWgRows;
  constexpr int group = kEpiConsumers * 128;
  constexpr int barrier = kEpiConsumers == 2 ? kBarrierSplitK : 2;
  const int group_thread = consumer * 128 + thread;
  // The partial is laid out as C's part of the tile (row-major in C): with SWAP_AB, transposed.
  constexpr int c_cols = kSwapAB ? kBM : kBN;
#if CL2_SPLIT_DSMEM
  constexpr int c_rows = kSwapAB ? kBN : kBM;
  // Rows padded so that a warp's stores spread over the banks: 8 floats where a lane stores two
  // columns (two wavefronts, the least 256 bytes take), 4 where lanes store along the columns.
  constexpr int stride = c_cols + (kSwapAB ? 4 : 8);
  static_assert(kStages * (kABytes + kBBytes) >= c_rows * stride * 4, "the partial fits in the ring");
  // Both consumers' wgmma read the ring until their last k-block: none may overwrite it before.
  if (kEpiConsumers == 2) cl2_named_sync<kBarrierSplitK, 256>();
  cl2_for_each_pair(acc, warp, lane, [&](int row, int col, float lo, float hi) {
    if (kSwapAB) {
      cl2_st_shared_f32(ring + (col * stride + first_row + row) * 4, lo);
      cl2_st_shared_f32(ring + ((col + 1) * stride + first_row + row) * 4, hi);
    } else {
      cl2_st_shared_f32x2(ring + ((first_row + row) * stride + col) * 4, lo, hi);
    }
  });
  // Every thread of the cluster arrives (the producer's, having exited, count as arrived): every
  // slice's partial is then in its CTA's shared memory and visible to the others.
  cl2_cluster_sync();
  (void)barrier;
  (void)tiles;
  (void)tile;
  auto load = [&](int slice, int quad, float (&v)[4]) {
    constexpr int groups = c_cols / 4;
    cl2_ld_dsmem_f32x4(ring + ((quad / groups) * stride + quad % groups * 4) * 4, unsigned(slice), v);
  };
#else
  (void)ring;
  float* partial = cl2_splitk_partial(p, tiles, tile, work.slice, kBM * kBN);
  cl2_for_each_pair(acc, warp, lane, [&](int row, int col, float lo, float hi) {
    if (kSwapAB) {
      partial[col * kBM + first_row + row] = lo;
      partial[(col + 1) * kBM + first_row + row] = hi;
    } else {
      cl2_st_global_f32x2(partial + (first_row + row) * kBN + col, lo, hi);
    }
  });
  cl2_splitk_meet<group, barrier>(p, tile, group_thread);
  const Cl2WorkspacePartials load{p, tiles, tile, kBM * kBN};
#endif
  constexpr int quads = kBM * kBN / 4;
  // 32-bit (quads * split_k stays far below 2^31): a 64-bit division here and in the work index
  // cost small split-K kernels ~0.3 us per call on the H200.
  const int begin = work.slice * quads / p.split_k;
  const int end = (work.slice + 1) * quads / p.split_k;
  // CL2_RED_QUADS x CL2_RED_SLICES partials in flight per pass, set by the space file from the split:
  // every slice at once, up to 16, on tiles up to 64x128. Each pass costs an L2 round trip, and with
  // many slices a CTA's share of the tile is a quad or two per thread, so the passes are the cost
  // (measured on the H200, 2400 variants of 8 small-tile shapes: 64x64x12288 in 16 slices 6.5 us in
  // one pass of one quad per thread against 7.6 us in four passes of two; 8 slices 3% faster in one
  // pass than in two). Bigger tiles keep 2 x 4: their share per thread is larger, and ptxas spilled.
  const int c_row0 = kSwapAB ? work.tile_n * kBN : work.tile_m * kBM;
  const int c_col0 = kSwapAB ? work.tile_m * kBM : work.tile_n * kBN;
  cl2_splitk_reduce<group, CL2_RED_QUADS, CL2_RED_SLICES>(p, c_cols, c_row0, c_col0, begin, end, group_thread, load);
#if CL2_SPLIT_DSMEM
  // No CTA may leave, and its shared memory with it, while a peer still reads its partial (every
  // read's value is summed and stored by now: no fence needed, and a release fence here waited for
  // the C stores).
  cl2_cluster_sync_relaxed();
#endif
}
#endif
