// Ampere-style tensor-core building blocks as inline PTX (NVRTC sees no CUDA headers): 16-byte
// cp.async with zero fill, ldmatrix and mma.sync m16n8k16. Valid on sm_80 .. sm_90a.
//
// Every instruction that touches shared memory is `asm volatile` with a "memory" clobber: the
// compiler must neither merge two ldmatrix of the same address from different k-blocks nor move
// one across a barrier or a cp.async wait, neither of which it can see through. The mma wrappers
// are plain register operations and stay free to be scheduled.

__device__ __forceinline__ unsigned cl2_smem_u32(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// Copies 16 bytes global -> shared, or writes 16 zero bytes when `full` is false: with src-size 0
// nothing is read, so out-of-range rows and K tails need no separate clearing pass. .cg skips L1
// (each tile byte is read once per CTA).
__device__ __forceinline__ void cl2_cp_async_16(unsigned smem_dst, const void* global_src,
                                                bool full) {
  const int src_bytes = full ? 16 : 0;
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(smem_dst),
               "l"(global_src), "r"(src_bytes)
               : "memory");
}

__device__ __forceinline__ void cl2_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Returns once at most `pending` of this thread's committed groups are still in flight.
template <int pending>
__device__ __forceinline__ void cl2_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

__device__ __forceinline__ void cl2_st_shared_v4(unsigned smem_dst, unsigned x, unsigned y,
                                                 unsigned z, unsigned w) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_dst), "r"(x), "r"(y),
               "r"(z), "r"(w)
               : "memory");
}

// Four 8x8 b16 matrices; lanes 8j..8j+7 give the row addresses of matrix j, and register j of lane
// l receives row l/4, elements 2(l%4) and 2(l%4)+1 of matrix j.
__device__ __forceinline__ void cl2_ldmatrix_x4(unsigned (&r)[4], unsigned smem_src) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_src)
               : "memory");
}

// As above, but lane l receives column l/4, rows 2(l%4) and 2(l%4)+1 of each stored matrix.
__device__ __forceinline__ void cl2_ldmatrix_x4_trans(unsigned (&r)[4], unsigned smem_src) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_src)
               : "memory");
}

// d += a * b for a 16x8x16 tile, fp32 accumulators: d[0..1] row g, d[2..3] row g+8, columns
// 2t, 2t+1 (g = lane/4, t = lane%4).
__device__ __forceinline__ void cl2_mma_f32(float (&d)[4], const unsigned (&a)[4],
                                            const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Same with fp16 accumulators: d[0] = half2 (row g, columns 2t, 2t+1), d[1] the same for row g+8.
__device__ __forceinline__ void cl2_mma_f16(unsigned (&d)[2], const unsigned (&a)[4],
                                            const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};\n"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
