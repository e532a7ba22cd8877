// sm90 family, consumer side after the main loop: the WG_KSPLIT exchange of partial accumulators
// between the two consumers, and the three ways to write C (direct stores, TMA stores through a
// swizzled staging buffer, split-K through the workspace). Inlined into sm90_hgemm.cuh after its
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

// Calls visit(row, col, lo, hi) for every pair of adjacent columns a consumer holds, rows and
// columns counted from the consumer's first row of the tile.
template <typename Visit>
__device__ __forceinline__ void cl2_for_each_pair(const Cl2Acc (&acc)[kSlices][CL2_WG_REGS], int warp, int lane,
                                                  Visit visit) {
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float lo, hi;
        cl2_pair(acc[s], j, h, lo, hi);
        visit(s * 64 + warp * 16 + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4), lo, hi);
      }
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

#if CL2_WG_KSPLIT
// Registers 4i..4i+3 of thread t sit at 16-byte unit i * 128 + t: a warp's stores and loads cover
// 512 contiguous bytes, free of bank conflicts.
__device__ __forceinline__ void cl2_exchange_give(const Cl2Acc (&acc)[kSlices][CL2_WG_REGS], unsigned buffer,
                                                  int thread) {
  cl2_named_sync<kBarrierExchangeFree, 256>();
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int i = 0; i < CL2_WG_REGS; i += 4) {
      const unsigned addr = buffer + ((s * CL2_WG_REGS + i) / 4 * 128 + thread) * 16;
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(cl2_acc_bits(acc[s][i])),
                   "r"(cl2_acc_bits(acc[s][i + 1])), "r"(cl2_acc_bits(acc[s][i + 2])),
                   "r"(cl2_acc_bits(acc[s][i + 3]))
                   : "memory");
    }
  cl2_named_arrive<kBarrierExchangeReady, 256>();
}

__device__ __forceinline__ void cl2_exchange_take(Cl2Acc (&acc)[kSlices][CL2_WG_REGS], unsigned buffer,
                                                  int thread) {
  cl2_named_sync<kBarrierExchangeReady, 256>();
#pragma unroll
  for (int s = 0; s < kSlices; ++s)
#pragma unroll
    for (int i = 0; i < CL2_WG_REGS; i += 4) {
      const unsigned addr = buffer + ((s * CL2_WG_REGS + i) / 4 * 128 + thread) * 16;
      unsigned v0, v1, v2, v3;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                   : "r"(addr)
                   : "memory");
      cl2_acc_add_bits(acc[s][i], v0);
      cl2_acc_add_bits(acc[s][i + 1], v1);
      cl2_acc_add_bits(acc[s][i + 2], v2);
      cl2_acc_add_bits(acc[s][i + 3], v3);
    }
  cl2_named_arrive<kBarrierExchangeFree, 256>();
}
#else
__device__ __forceinline__ void cl2_exchange_give(const Cl2Acc (&)[kSlices][CL2_WG_REGS], unsigned, int) {}
__device__ __forceinline__ void cl2_exchange_take(Cl2Acc (&)[kSlices][CL2_WG_REGS], unsigned, int) {}
#endif

// ---- direct stores ------------------------------------------------------------------------------
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
  cl2_for_each_pair(acc, warp, lane, [&](int row, int col, float lo, float hi) {
    cl2_store_pair(p, row0 + row, col0 + col, lo, hi);
  });
}

// ---- TMA stores ---------------------------------------------------------------------------------
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

// ---- split-K ------------------------------------------------------------------------------------
#if CL2_SPLITK
// This slice stores its fp32 partial tile (row-major, two columns per 8-byte store), meets the
// tile's other slices, then adds the slices' partials over its 1/split_k share of the tile and
// writes that share of C (cl2_common.cuh). The consumers that write C form the group: both in
// cooperative mode, consumer 0 alone with WG_KSPLIT (it holds the whole tile). Split-K is planned
// for grids of one wave only, and never with ping-pong (which needs several tiles per CTA).
__device__ __forceinline__ void cl2_store_split(const Cl2GemmParams& p,
                                                const Cl2Acc (&acc)[kSlices][CL2_WG_REGS],
                                                const Cl2Work& work, int consumer, int thread, int warp,
                                                int lane) {
  static_assert(!kPingpong, "split-K tiles are not shared out by turns");
  const int tiles_n = (p.n + kBN - 1) / kBN;
  const int tiles = ((p.m + kBM - 1) / kBM) * tiles_n;
  const int tile = work.tile_m * tiles_n + work.tile_n;
  float* partial = cl2_splitk_partial(p, tiles, tile, work.slice, kBM * kBN);
  const int first_row = kWholeTile ? 0 : consumer * kWgRows;
  cl2_for_each_pair(acc, warp, lane, [&](int row, int col, float lo, float hi) {
    cl2_st_global_f32x2(partial + (first_row + row) * kBN + col, lo, hi);
  });
  constexpr int group = kEpiConsumers * 128;
  constexpr int barrier = kEpiConsumers == 2 ? kBarrierSplitK : 2;
  const int group_thread = consumer * 128 + thread;
  cl2_splitk_meet<group, barrier>(p, tile, group_thread);
  constexpr int quads = kBM * kBN / 4;
  cl2_splitk_reduce<group, 2, 4>(p, tiles, tile, kBM, kBN, work.tile_m * kBM, work.tile_n * kBN,
                              int((long long)work.slice * quads / p.split_k),
                              int((long long)(work.slice + 1) * quads / p.split_k), group_thread);
}
#endif
