// Hopper (sm_90a) building blocks as inline PTX: mbarriers, TMA loads and stores, wgmma fences
// and shared-memory descriptors, register reallocation and cluster helpers. Every wrapper is one
// or two instructions; the PTX ISA sections they follow are named where the reason is not obvious.

__device__ __forceinline__ unsigned cl2_smem_addr(const void* ptr) {
  return (unsigned)__cvta_generic_to_shared(ptr);
}

// ---- mbarrier -------------------------------------------------------------------------------
__device__ __forceinline__ void cl2_mbar_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}

// Waits until the phase with parity `parity` has completed. A fresh barrier is in phase 0, so a
// wait for parity 1 returns at once: producers start with parity 1 on their "slot free" barriers.
__device__ __forceinline__ void cl2_mbar_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred ready;\n mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
        " selp.u32 %0, 1, 0, ready;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// One arrival that also tells the barrier how many bytes of TMA traffic complete the phase.
__device__ __forceinline__ void cl2_mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void cl2_mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrival on the barrier at the same shared-memory offset in CTA `cta` of the cluster.
__device__ __forceinline__ void cl2_mbar_arrive_cluster(unsigned bar, unsigned cta) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

// ---- distributed shared memory ------------------------------------------------------------------
__device__ __forceinline__ void cl2_st_shared_f32(unsigned addr, float x) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(x) : "memory");
}
__device__ __forceinline__ void cl2_st_shared_f32x2(unsigned addr, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(x), "f"(y) : "memory");
}
// 16 bytes at shared-memory address `addr` of CTA `cta` of the cluster.
__device__ __forceinline__ void cl2_ld_dsmem_f32x4(unsigned addr, unsigned cta, float (&v)[4]) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %4, %5;\n"
      " ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}\n"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
      : "r"(addr), "r"(cta)
      : "memory");
}

// ---- TMA (cp.async.bulk.tensor) ---------------------------------------------------------------
__device__ __forceinline__ void cl2_tma_load_2d(unsigned dst, const Cl2TensorMap* map, unsigned bar,
                                                int inner, int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(inner), "r"(outer)
      : "memory");
}

// The same box delivered to the same offset in every CTA of `cta_mask`, each CTA's barrier at
// `bar`'s offset receiving the bytes.
__device__ __forceinline__ void cl2_tma_load_2d_multicast(unsigned dst, const Cl2TensorMap* map,
                                                          unsigned bar, int inner, int outer,
                                                          unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"(map), "r"(bar), "r"(inner), "r"(outer), "h"(cta_mask)
      : "memory");
}

// 3-D boxes: with KB_PAIR an operand's tensor map is (k within a 64-wide atom, rows, atoms), so
// that one box brings both k atoms of a stage (or, multicast, one atom at a time).
__device__ __forceinline__ void cl2_tma_load_3d(unsigned dst, const Cl2TensorMap* map, unsigned bar, int inner,
                                                int outer, int atom) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(inner), "r"(outer), "r"(atom)
      : "memory");
}

__device__ __forceinline__ void cl2_tma_load_3d_multicast(unsigned dst, const Cl2TensorMap* map, unsigned bar,
                                                          int inner, int outer, int atom, unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst),
      "l"(map), "r"(bar), "r"(inner), "r"(outer), "r"(atom), "h"(cta_mask)
      : "memory");
}

// Asks the L2 for a box, with no shared memory or barrier involved: a later load of the same box
// finds its lines there instead of waiting on DRAM.
__device__ __forceinline__ void cl2_tma_prefetch_2d(const Cl2TensorMap* map, int inner, int outer) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(map), "r"(inner), "r"(outer)
               : "memory");
}

__device__ __forceinline__ void cl2_tma_prefetch_3d(const Cl2TensorMap* map, int inner, int outer, int atom) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(map), "r"(inner),
               "r"(outer), "r"(atom)
               : "memory");
}

// Stores a box from shared memory; elements outside the tensor are not written (TMA clips).
__device__ __forceinline__ void cl2_tma_store_2d(const Cl2TensorMap* map, unsigned src, int inner,
                                                 int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
               "r"(src), "r"(inner), "r"(outer)
               : "memory");
}

__device__ __forceinline__ void cl2_tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until earlier stores have finished reading shared memory (so it may be overwritten).
__device__ __forceinline__ void cl2_tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__device__ __forceinline__ void cl2_prefetch_tensor_map(const Cl2TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

// Ordinary shared-memory stores become visible to the TMA engine (the async proxy) only after
// this fence (PTX ISA: proxy fences).
__device__ __forceinline__ void cl2_fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- wgmma ------------------------------------------------------------------------------------
__device__ __forceinline__ void cl2_wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void cl2_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int pending>
__device__ __forceinline__ void cl2_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(pending) : "memory");
}

// Shared-memory matrix descriptor with 128-byte swizzle (PTX ISA: matrix descriptor format):
// start address, leading and stride byte offsets, each in 16-byte units, swizzle mode 1 in bits
// 62-63. The tile must sit on a 1024-byte boundary (base offset 0).
__device__ __forceinline__ unsigned long long cl2_sw128_desc(unsigned addr, unsigned lead_bytes,
                                                             unsigned stride_bytes) {
  return (unsigned long long)((addr & 0x3ffff) >> 4) |
         ((unsigned long long)((lead_bytes & 0x3ffff) >> 4) << 16) |
         ((unsigned long long)((stride_bytes & 0x3ffff) >> 4) << 32) | (1ull << 62);
}

// ---- warpgroups, clusters, named barriers -----------------------------------------------------
template <int regs>
__device__ __forceinline__ void cl2_regs_release() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(regs));
}
template <int regs>
__device__ __forceinline__ void cl2_regs_claim() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(regs));
}

__device__ __forceinline__ unsigned cl2_cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// Once, before the roles split: peers' barriers must exist before anything reaches them. Not
// .aligned, so that it stays correct wherever a warp's lanes might have diverged.
__device__ __forceinline__ void cl2_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// The same without ordering memory (no fence): for a shared-memory lifetime, not for data.
__device__ __forceinline__ void cl2_cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed;\nbarrier.cluster.wait;" ::: "memory");
}

__device__ __forceinline__ void cl2_fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Programmatic dependent launch. A grid launched with programmatic stream serialization may start
// while the previous kernel of its stream still runs: what it does before the wait must not read
// anything that kernel writes, nor write anything it reads or writes. The wait returns once the
// previous grid has completed and its writes are visible (at once for a grid launched without the
// attribute). The trigger lets the next such grid start as soon as every CTA of this one has
// issued it or exited.
__device__ __forceinline__ void cl2_grid_dependency_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void cl2_launch_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

template <int id, int threads>
__device__ __forceinline__ void cl2_named_sync() {
  asm volatile("bar.sync %0, %1;" ::"n"(id), "n"(threads) : "memory");
}
// Counts this warp's arrival without waiting: a thread that writes shared memory and then arrives
// hands it to the threads that bar.sync on the same barrier.
template <int id, int threads>
__device__ __forceinline__ void cl2_named_arrive() {
  asm volatile("bar.arrive %0, %1;" ::"n"(id), "n"(threads) : "memory");
}
// Barrier among the 128 threads of one warpgroup; `id` tells warpgroups apart.
__device__ __forceinline__ void cl2_warpgroup_barrier(int id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}
