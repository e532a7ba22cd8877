// Host side of the stamp probe (build.sh says what it prints): one decode shape, our kernel (the
// defines above) and read-only streams of the same weight bytes, each launched back to back over
// rotating operand copies inside a CUDA graph (as bench --l2 rotate times), then the stamps of the
// steady-state launches summarised. Scratch-grade on purpose: a diagnosis tool, not the tuner's path.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

// The read kernels fold what they load into one value and store it only if it matches a constant
// it never does, so the loads cannot be dropped and nothing is written.
__device__ __forceinline__ void fold(uint4& acc, const uint4& v) { acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w; }
__device__ __forceinline__ void keep_alive(const uint4& acc, unsigned* sink) {
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) *sink = acc.x;
}

__global__ void stamped_read(const uint4* data, long long count, unsigned* sink) {
  CL2_STAMP_ENTRY();
  __syncthreads();
  if (threadIdx.x == 0) { CL2_STAMP(1); CL2_STAMP(2); }
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  bool first = true;
  for (; i + 3 * stride < count; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = __ldg(data + i + j * stride);
#pragma unroll
    for (int j = 0; j < 4; ++j) fold(acc, v[j]);
    if (first && threadIdx.x == 0) { CL2_STAMP(3); first = false; }
  }
  for (; i < count; i += stride) fold(acc, __ldg(data + i));
  if (threadIdx.x == 0) CL2_STAMP(4);
  keep_alive(acc, sink);
  __syncthreads();
  if (threadIdx.x == 0) CL2_STAMP(5);
}


// The read-only stream as our PDL kernels overlap back-to-back calls: each CTA reads its first
// `ahead` steps (one ring's worth in our kernels: the weights, never written by the call before)
// before griddepcontrol.wait, the rest after it, and lets the next call launch once it has `ahead`
// steps left (as our producer does once its last loads are issued). A step is four grid strides,
// one 16-byte load each in flight per thread, as stamped_read keeps them. At most two calls
// overlap, so they never read one copy of the weights together.
__global__ void overlapped_read(const uint4* data, long long count, unsigned* sink, int ahead) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long loads = first < count ? (count - first + stride - 1) / stride : 0;
  const long long steps = (loads + 3) / 4;
  uint4 acc = make_uint4(0, 0, 0, 0);
  long long i = first;
  for (long long step = 0; step < steps; ++step, i += 4 * stride) {
    if (step == ahead) asm volatile("griddepcontrol.wait;" ::: "memory");
    if (step == steps - ahead) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = i + j * stride < count ? __ldg(data + i + j * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < 4; ++j) fold(acc, v[j]);
  }
  if (steps <= ahead) asm volatile("griddepcontrol.wait;" ::: "memory");
  keep_alive(acc, sink);
}

// A weight panel per CTA, as our non-split kernels read the weights: CTA b streams the b-th
// contiguous 1/gridDim of the buffer. With `dynamic`, CTAs instead take 64 KB chunks in turn from
// a counter, so a CTA that streams faster takes more.
__device__ unsigned long long cl2_chunk_next[kStampSlots];
__global__ void stamped_panels(const uint4* data, long long count, unsigned* sink, int dynamic) {
  CL2_STAMP_ENTRY();
  __shared__ long long next_chunk;
  __syncthreads();
  if (threadIdx.x == 0) { CL2_STAMP(1); CL2_STAMP(2); }
  uint4 acc = make_uint4(0, 0, 0, 0);
  bool first = true;
  const long long chunk = 4096;  // uint4s: 64 KB
  const long long chunks = (count + chunk - 1) / chunk;
  long long c = dynamic ? 0 : (long long)blockIdx.x * chunks / gridDim.x;
  const long long c_end = dynamic ? chunks : (long long)(blockIdx.x + 1) * chunks / gridDim.x;
  for (;;) {
    if (dynamic) {
      if (threadIdx.x == 0) next_chunk = (long long)atomicAdd(&cl2_chunk_next[cl2_slot % kStampSlots], 1ull);
      __syncthreads();
      c = next_chunk;
      __syncthreads();
    }
    if (c >= c_end) break;
    const long long base = c * chunk, end = min(count, base + chunk);
    for (long long i = base + threadIdx.x; i < end; i += 4 * blockDim.x) {
      uint4 v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = i + j * blockDim.x < end ? __ldg(data + i + j * blockDim.x) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int j = 0; j < 4; ++j) fold(acc, v[j]);
    }
    if (first && threadIdx.x == 0) { CL2_STAMP(3); first = false; }
    if (!dynamic) ++c;
  }
  if (threadIdx.x == 0) CL2_STAMP(4);
  keep_alive(acc, sink);
  __syncthreads();
  if (threadIdx.x == 0) CL2_STAMP(5);
}

static CUtensorMap encode(const void* base, long long inner, long long outer, int box_outer, int depth) {
  CUtensorMap map;
  const bool atoms = depth > 0;
  const cuuint64_t dims[3] = {cuuint64_t(atoms ? 64 : inner), cuuint64_t(outer), cuuint64_t(inner / 64)};
  const cuuint64_t strides[2] = {cuuint64_t(inner) * 2, 128};
  const cuuint32_t box[3] = {64u, cuuint32_t(box_outer), cuuint32_t(depth)};
  const cuuint32_t es[3] = {1, 1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, atoms ? 3 : 2, const_cast<void*>(base),
                                      dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { printf("encode failed %d\n", int(r)); exit(1); }
  return map;
}

typedef unsigned long long u64;
static u64 gt[kStampSlots][kStampCtas][kStampEvents];
static long long ck[kStampSlots][kStampCtas][kStampEvents];

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }

// Per steady-state launch: from the launch's first CTA entry, when the CTAs entered (last), finished
// set-up, issued the first load, saw first data, saw the last data, finished; the gap from the
// previous launch's last finish. Medians over launches; per-CTA durations from clock64 in ns at the
// clock the launch ran (from globaltimer over the same span).
static void summarise(const char* what, int grid, int launches, double us_per_call) {
  CK(cudaMemcpyFromSymbol(gt, cl2_gt, sizeof(gt)));
  CK(cudaMemcpyFromSymbol(ck, cl2_ck, sizeof(ck)));
  std::vector<double> gap, spread, setup, issue, first, stream, tail, last_end, span, mhz, first_data_spread, last_data_spread;
  u64 prev_end = 0;
  for (int l = 0; l < std::min(launches, kStampSlots); ++l) {
    u64 start = ~0ull, end = 0, entry_max = 0, fd_min = ~0ull, fd_max = 0, ld_min = ~0ull, ld_max = 0;
    double cyc = 0, ns = 0;
    std::vector<double> su, is, fi, st, ta;
    for (int c = 0; c < grid; ++c) {
      const u64* g = gt[l][c];
      const long long* k = ck[l][c];
      start = std::min(start, g[0]); end = std::max(end, g[5]); entry_max = std::max(entry_max, g[0]);
      fd_min = std::min(fd_min, g[3]); fd_max = std::max(fd_max, g[3]);
      ld_min = std::min(ld_min, g[4]); ld_max = std::max(ld_max, g[4]);
      cyc += double(k[5] - k[0]); ns += double(g[5] - g[0]);
      su.push_back(k[1] - k[0]); is.push_back(k[2] - k[1]); fi.push_back(k[3] - k[2]); st.push_back(k[4] - k[3]); ta.push_back(k[5] - k[4]);
    }
    const double ghz = cyc / ns;
    if (l >= 8) {  // steady state
      if (prev_end) gap.push_back((double(start) - double(prev_end)) / 1e3);
      spread.push_back((entry_max - start) / 1e3);
      setup.push_back(median(su) / ghz / 1e3); issue.push_back(median(is) / ghz / 1e3);
      first.push_back(median(fi) / ghz / 1e3); stream.push_back(median(st) / ghz / 1e3); tail.push_back(median(ta) / ghz / 1e3);
      span.push_back((end - start) / 1e3); mhz.push_back(ghz * 1e3);
      first_data_spread.push_back((double(fd_max) - double(fd_min)) / 1e3);
      last_data_spread.push_back((double(ld_max) - double(ld_min)) / 1e3);
      last_end.push_back((double(end) - double(ld_max)) / 1e3);
    }
    prev_end = end;
  }
  printf("%-34s call %6.2f us | gap %5.2f | span %6.2f = entry spread %4.2f ... | per CTA (median, us): setup %4.2f, "
         "to 1st load %4.2f, 1st data %4.2f, stream %6.2f, tail %4.2f | 1st data spread %4.2f, last data spread %4.2f, "
         "last data->end %4.2f | %4.0f MHz\n",
         what, us_per_call, median(gap), median(span), median(spread), median(setup), median(issue), median(first),
         median(stream), median(tail), median(first_data_spread), median(last_data_spread), median(last_end), median(mhz));
}

template <typename Launch>
static double time_graph(cudaStream_t st, int launches, Launch launch) {
  cudaGraph_t g; cudaGraphExec_t ge;
  const unsigned zero = 0;
  CK(cudaMemcpyToSymbol(cl2_entries, &zero, 4));
  static const unsigned long long zeros[kStampSlots] = {};
  CK(cudaMemcpyToSymbol(cl2_chunk_next, zeros, sizeof(zeros)));
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  for (int c = 0; c < launches; ++c) launch(c);
  CK(cudaStreamEndCapture(st, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, st)); CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    CK(cudaMemcpyToSymbolAsync(cl2_entries, &zero, 4, 0, cudaMemcpyHostToDevice, st));
    static const unsigned long long zeros[kStampSlots] = {};
    CK(cudaMemcpyToSymbolAsync(cl2_chunk_next, zeros, sizeof(zeros), 0, cudaMemcpyHostToDevice, st));
    cudaEventRecord(e0, st); cudaGraphLaunch(ge, st); cudaEventRecord(e1, st); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1e3 / launches);
  }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  return median(t);
}

int main(int argc, char** argv) {
  if (argc < 4) { printf("usage: probe M N K [read|ours|both]\n"); return 2; }
  const long long M = atoll(argv[1]), N = atoll(argv[2]), K = atoll(argv[3]);
  const bool ours = argc < 5 || argv[4][0] == 'o' || argv[4][0] == 'b', read = argc < 5 || argv[4][0] == 'r' || argv[4][0] == 'b';
  constexpr int kPair = 1 << CL2_KB_PAIR, kBK = 64 * kPair;
  const long long wbytes = N * K * 2;
  const int copies = std::max(2, int((200e6 + wbytes - 1) / wbytes));
  const int launches = kStampSlots;  // every launch keeps its stamps
  unsigned short *a, *b, *c; unsigned* sink;
  CK(cudaMalloc(&a, copies * M * K * 2)); CK(cudaMalloc(&b, copies * wbytes)); CK(cudaMalloc(&c, copies * M * N * 2));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(a, 0x11, copies * M * K * 2)); CK(cudaMemset(b, 0x11, copies * wbytes));
  cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  char name[160];
  if (ours) {
    const int smem = 1024 + CL2_STAGES * (CL2_BM + CL2_BN) * 2 * kBK + CL2_STAGES * 16 + 32;
    CK(cudaFuncSetAttribute(cl2_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const int grid = int((N + CL2_BM - 1) / CL2_BM * ((M + CL2_BN - 1) / CL2_BN));
    std::vector<Cl2GemmParams> params(copies);
    for (int i = 0; i < copies; ++i) {
      Cl2GemmParams& p = params[i];
      memset(&p, 0, sizeof(p));
      p.a = a + i * M * K; p.b = b + i * N * K; p.c = c + i * M * N;
      p.lda = K; p.ldb = K; p.ldc = N; p.m = int(M); p.n = int(N); p.k = int(K); p.split_k = 1; p.raster_group = 1;
      CUtensorMap ta = encode(p.a, K, M, CL2_BN, CL2_KB_PAIR ? kPair : 0), tb = encode(p.b, K, N, CL2_BM, CL2_KB_PAIR ? kPair : 0);
      memcpy(&p.tmap_a, &ta, sizeof(ta)); memcpy(&p.tmap_b, &tb, sizeof(tb));
    }
    const double us = time_graph(st, launches, [&](int l) { cl2_gemm<<<grid, 128 * (CL2_CONSUMERS + 1), smem, st>>>(params[l % copies]); });
    snprintf(name, sizeof name, "ours BM%d BN%d ST%d KB%d grid %d", CL2_BM, CL2_BN, CL2_STAGES, CL2_KB_PAIR, grid);
    summarise(name, grid, launches, us);
  }
  if (argc >= 5 && argv[4][0] == 'p') {  // panels: static per-CTA panels against dynamic chunks
    const int ctas = argc > 5 ? atoi(argv[5]) : 108;
    for (int dynamic : {0, 1})
      for (int blocks : {ctas, 132}) {
        const double us = time_graph(st, launches, [&](int l) {
          stamped_panels<<<blocks, 512, 0, st>>>((const uint4*)(b + (l % copies) * N * K), wbytes / 16, sink, dynamic);
        });
        snprintf(name, sizeof name, "panels %s %d x 512", dynamic ? "dynamic" : "static", blocks);
        summarise(name, blocks, launches, us);
      }
    return 0;
  }
  if (read) {
    for (int blocks : {132, 264, 528}) {
      const double us = time_graph(st, launches, [&](int l) {
        stamped_read<<<blocks, 512, 0, st>>>((const uint4*)(b + (l % copies) * N * K), wbytes / 16, sink);
      });
      snprintf(name, sizeof name, "read %d x 512", blocks);
      summarise(name, blocks, launches, us);
    }
    for (int ahead : {0, 1, 2, 4})
      for (int blocks : {132, 264}) {
        const double us = time_graph(st, launches, [&](int l) {
          cudaLaunchConfig_t config = {};
          config.gridDim = dim3(blocks);
          config.blockDim = dim3(512);
          config.stream = st;
          cudaLaunchAttribute overlap;
          overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
          overlap.val.programmaticStreamSerializationAllowed = 1;
          config.attrs = &overlap;
          config.numAttrs = 1;
          CK(cudaLaunchKernelEx(&config, overlapped_read, (const uint4*)(b + (l % copies) * N * K), wbytes / 16, sink,
                                ahead));
        });
        snprintf(name, sizeof name, "read-pdl %d x 512, %d ahead", blocks, ahead);
        printf("%-34s call %6.2f us | %.2f TB/s of weights\n", name, us, wbytes / us / 1e6);
      }
  }
  CK(cudaGetLastError());
  return 0;
}
