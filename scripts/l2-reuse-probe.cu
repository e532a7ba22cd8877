// How much of a GEMM's speed in back-to-back calls comes from finding its operands still in L2:
// times cuBLASLt's first heuristic algorithms for one TN fp16 GEMM (fp32 accumulation), and
// optionally one of our compiled kernels, each in a CUDA graph of 100 calls back to back and with a
// kernel between calls that reads 256 MB (L2 evicted; the evicting kernel's own time is taken off).
// The tuner times every call back to back, so a shape whose operands fit the L2 is tuned warm; this
// says how much that is worth to each side. Build and run on the GPU machine:
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o /tmp/l2-reuse-probe scripts/l2-reuse-probe.cu -lcublasLt -lcuda
//   /tmp/l2-reuse-probe 64 4096 4096
//   /tmp/l2-reuse-probe 64 1024 1024 KERNEL.cubin SWAP ROWS COLS C_ROWS GRID THREADS SMEM CLUSTER SPLIT_K WORKSPACE
// The kernel's launch comes from its space file's expressions for the config (tune --verbose lists
// the config; the cubin is the one `tune --compile-only` puts in an empty --cache-dir): ROWS and
// COLS are the TMA boxes' outer sizes of the tile's row and column operands (BM / CLUSTER_N and
// BN / CLUSTER_M), C_ROWS that of C's box (0 without a TMA-store epilogue), SWAP is SWAP_AB.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../templates/cl2_abi.cuh"

#define CHECK(call)                                                                  \
  do {                                                                               \
    const long long status = (long long)(call);                                      \
    if (status != 0) {                                                               \
      std::fprintf(stderr, "%s failed with status %lld\n", #call, status);          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

// Inputs in [-1, 1) from a hash: all-zero operands let the GPU run at higher clocks than real data.
__global__ void fill_random(__half* x, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = __float2half(float(h & 0xffff) / 32768.0f - 1.0f);
  }
}
__global__ void read_buffer(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;  // never true for these contents; keeps the loads
}

// A tensor map as the tuner encodes it (src/gpu/prepared_kernel.cpp): 64 elements of K (or N for C)
// by `rows`, 128-byte swizzle, 256-byte L2 promotion.
Cl2TensorMap encode(const void* base, long long inner, long long outer, int rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
  const cuuint64_t strides[1] = {cuuint64_t(inner) * 2};
  const cuuint32_t box[2] = {64, cuuint32_t(std::max(rows, 1))};
  const cuuint32_t element_strides[2] = {1, 1};
  CHECK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  Cl2TensorMap out;
  std::memcpy(&out, &map, sizeof out);
  return out;
}

int main(int argc, char** argv) {
  if (argc != 4 && argc != 15) {
    std::fprintf(stderr, "usage: %s M N K [CUBIN SWAP ROWS COLS C_ROWS GRID THREADS SMEM CLUSTER SPLIT_K WORKSPACE]\n",
                 argv[0]);
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  CHECK(cuInit(0));
  __half *a, *b, *c;
  CHECK(cudaMalloc(&a, 2ull * m * k));
  CHECK(cudaMalloc(&b, 2ull * n * k));
  CHECK(cudaMalloc(&c, 2ull * m * n));
  fill_random<<<1024, 256>>>(a, size_t(m) * k, 1u);
  fill_random<<<1024, 256>>>(b, size_t(n) * k, 2u);
  const size_t evict_bytes = 256ull << 20;
  float4* evict;
  float* sink;
  CHECK(cudaMalloc(&evict, evict_bytes));
  CHECK(cudaMemset(evict, 0, evict_bytes));
  CHECK(cudaMalloc(&sink, 4));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  struct Call {
    char name[64];
    std::function<void()> launch;
  };
  std::vector<Call> calls;

  // Ours: the kernel ABI of templates/cl2_abi.cuh, geometry from the command line.
  Cl2GemmParams params;
  std::memset(&params, 0, sizeof params);
  CUfunction function = nullptr;
  CUlaunchConfig config{};
  CUlaunchAttribute cluster;
  if (argc == 15) {
    const int swap = std::atoi(argv[5]), rows = std::atoi(argv[6]), cols = std::atoi(argv[7]);
    const int c_rows = std::atoi(argv[8]), cluster_size = std::atoi(argv[12]);
    const size_t workspace_bytes = std::max<size_t>(std::strtoull(argv[14], nullptr, 10), 256);
    CUmodule module;
    CHECK(cuModuleLoad(&module, argv[4]));
    CHECK(cuModuleGetFunction(&function, module, "cl2_gemm"));
    void* workspace;
    CHECK(cudaMalloc(&workspace, workspace_bytes));
    CHECK(cudaMemset(workspace, 0, workspace_bytes));  // kernels leave their counters zero
    params.a = reinterpret_cast<const unsigned short*>(a);
    params.b = reinterpret_cast<const unsigned short*>(b);
    params.c = reinterpret_cast<unsigned short*>(c);
    params.workspace = workspace;
    params.lda = params.ldb = k;
    params.ldc = n;
    params.m = m;
    params.n = n;
    params.k = k;
    params.split_k = std::atoi(argv[13]);
    params.raster_group = 1;
    params.tmap_a = encode(a, k, m, swap ? cols : rows);
    params.tmap_b = encode(b, k, n, swap ? rows : cols);
    params.tmap_c = encode(c, n, m, c_rows);
    config.gridDimX = unsigned(std::atoi(argv[9]));
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = unsigned(std::atoi(argv[10]));
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = unsigned(std::atoi(argv[11]));
    config.hStream = reinterpret_cast<CUstream>(stream);
    CHECK(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(config.sharedMemBytes)));
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = unsigned(cluster_size);
    cluster.value.clusterDim.y = cluster.value.clusterDim.z = 1;
    config.attrs = cluster_size > 1 ? &cluster : nullptr;
    config.numAttrs = cluster_size > 1 ? 1 : 0;
    Call ours{"ours", [&] {
                void* args[] = {&params};
                CHECK(cuLaunchKernelEx(&config, function, args, nullptr));
              }};
    calls.push_back(ours);
  }

  // cuBLASLt: column-major view of row-major C = A * B with B stored N x K: C^T (N x M) = B (N x K) * A^T.
  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
  cublasLtMatrixLayout_t layout_b, layout_a, layout_c;
  CHECK(cublasLtMatrixLayoutCreate(&layout_b, CUDA_R_16F, k, n, k));
  CHECK(cublasLtMatrixLayoutCreate(&layout_a, CUDA_R_16F, k, m, k));
  CHECK(cublasLtMatrixLayoutCreate(&layout_c, CUDA_R_16F, n, m, n));
  cublasLtMatmulPreference_t preference;
  CHECK(cublasLtMatmulPreferenceCreate(&preference));
  size_t lt_workspace_bytes = 64ull << 20;
  void* lt_workspace;
  CHECK(cudaMalloc(&lt_workspace, lt_workspace_bytes));
  CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &lt_workspace_bytes, sizeof lt_workspace_bytes));
  cublasLtMatmulHeuristicResult_t algos[4];
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, layout_b, layout_a, layout_c, layout_c, preference, 4, algos, &found));
  const float alpha = 1, beta = 0;
  for (int i = 0; i < found; ++i) {
    Call library{"", [&, i] {
                   CHECK(cublasLtMatmul(lt, op, &alpha, b, layout_b, a, layout_a, &beta, c, layout_c, c, layout_c,
                                        &algos[i].algo, lt_workspace, lt_workspace_bytes, stream));
                 }};
    std::snprintf(library.name, sizeof library.name, "cuBLASLt algorithm %d (heuristic rank)", i);
    calls.push_back(library);
  }

  const int repeats = 100;
  enum Between { kNothing, kEvictL2, kEvictionAlone };
  for (const Call& call : calls) {
    double us[3];
    for (int between = kNothing; between <= kEvictionAlone; ++between) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < repeats; ++i) {
        if (between != kEvictionAlone) call.launch();
        if (between != kNothing) read_buffer<<<264, 512, 0, stream>>>(evict, evict_bytes / 16, sink);
      }
      CHECK(cudaStreamEndCapture(stream, &graph));
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
      cudaEvent_t start, stop;
      CHECK(cudaEventCreate(&start));
      CHECK(cudaEventCreate(&stop));
      std::vector<float> ms;
      for (int rep = 0; rep < 7; ++rep) {
        CHECK(cudaEventRecord(start, stream));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        float x = 0;
        CHECK(cudaEventElapsedTime(&x, start, stop));
        ms.push_back(x);
      }
      std::sort(ms.begin(), ms.end());
      us[between] = 1000.0 * ms[ms.size() / 2] / repeats;
      CHECK(cudaGraphExecDestroy(exec));
      CHECK(cudaGraphDestroy(graph));
    }
    std::printf("%dx%dx%d %-36s back to back %8.2f us, L2 evicted between calls %8.2f us\n", m, n, k, call.name,
                us[kNothing], us[kEvictL2] - us[kEvictionAlone]);
  }
  CHECK(cudaGetLastError());
  return 0;
}
