#include "gpu/gemm_launch.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/driver_api.hpp"

namespace cl2 {

namespace {

static_assert(sizeof(Cl2TensorMap) == sizeof(CUtensorMap), "Cl2TensorMap must mirror CUtensorMap");
static_assert(alignof(Cl2TensorMap) == alignof(CUtensorMap), "Cl2TensorMap must mirror CUtensorMap");

CUtensorMapSwizzle swizzle_mode(int bytes) {
  switch (bytes) {
    case 0: return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  throw std::invalid_argument(fmt::format("tensor map swizzle of {} bytes is not supported", bytes));
}

// An fp16 tensor map over a row-major matrix of `outer` rows of `inner` elements, `ld` apart: 2-D,
// or with a box depth 3-D as (the first 64 of an atom, rows, atoms of 64 along the inner extent),
// the atoms 128 bytes apart, so that one box brings box_depth consecutive k-blocks of its rows
// (the inner extent must then be a multiple of 64: the space file's constraint).
// L2 promotion 128 B, the width of one k atom's row: with 256 B, on the H200, the SMs read an extra
// copy of each multicast tile from the L2 (128x15360x5120 in 4-CTA clusters: 236 MB against 197
// with 128 B, which is what cuBLAS's kernel reads) and a 2-CTA cluster read as much as none
// (db/results/h200-multicast).
Cl2TensorMap encode(const void* base, long long inner, long long outer, long long ld,
                    const TensorMapBox& box) {
  CUtensorMap map;
  const bool atoms = box.box_depth > 0;
  const cuuint64_t dims[3] = {cuuint64_t(atoms ? 64 : inner), cuuint64_t(outer), cuuint64_t(inner / 64)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * 2, 128};
  const cuuint32_t box_dims[3] = {cuuint32_t(box.box_inner), cuuint32_t(box.box_outer), cuuint32_t(box.box_depth)};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  CL2_CU(driver_api().tensor_map_encode_tiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, atoms ? 3 : 2, const_cast<void*>(base), dims, strides, box_dims,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(box.swizzle_bytes),
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  Cl2TensorMap out;
  std::memcpy(&out, &map, sizeof(out));
  return out;
}

}  // namespace

GemmOperands gemm_operands(const ProblemBuffers& buffers, int slot) {
  const Operands in = buffers.operands(slot);
  return {in.a, in.b, in.c, buffers.lda(), buffers.ldb(), buffers.ldc()};
}

Cl2GemmParams make_gemm_params(const LaunchGeometry& geometry, const Problem& problem,
                               const GemmOperands& operands, void* workspace) {
  Cl2GemmParams params{};
  params.a = static_cast<const unsigned short*>(operands.a);
  params.b = static_cast<const unsigned short*>(operands.b);
  params.c = static_cast<unsigned short*>(operands.c);
  params.bias = static_cast<const unsigned short*>(operands.bias);
  params.workspace = workspace;
  params.lda = operands.lda;
  params.ldb = operands.ldb;
  params.ldc = operands.ldc;
  params.m = int(problem.shape.m);
  params.n = int(problem.shape.n);
  params.k = int(problem.shape.k);
  params.split_k = 1;
  params.raster_group = 1;
  for (const auto& [field, value] : geometry.runtime) {
    if (field == "split_k") params.split_k = int(value);
    else if (field == "raster_group") params.raster_group = int(value);
    else throw std::invalid_argument(fmt::format("unknown runtime field {}", field));
  }
  const GemmShape& s = problem.shape;
  for (const auto& box : geometry.tensor_maps) {
    if (box.operand == "a") params.tmap_a = encode(params.a, s.k, s.m, params.lda, box);
    if (box.operand == "b")
      params.tmap_b = problem.layout == Layout::TN ? encode(params.b, s.k, s.n, params.ldb, box)
                                                   : encode(params.b, s.n, s.k, params.ldb, box);
    if (box.operand == "c") params.tmap_c = encode(params.c, s.n, s.m, params.ldc, box);
  }
  return params;
}

void set_shared_memory(CUfunction function, const LaunchGeometry& geometry) {
  CL2_CU(driver_api().func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         int(geometry.smem_bytes)));
}

void launch_gemm(CUfunction function, const LaunchGeometry& geometry, const Cl2GemmParams& params,
                 cudaStream_t stream, Overlap overlap) {
  CUlaunchConfig config{};
  config.gridDimX = unsigned(geometry.grid[0]);
  config.gridDimY = unsigned(geometry.grid[1]);
  config.gridDimZ = unsigned(geometry.grid[2]);
  config.blockDimX = unsigned(geometry.threads);
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = unsigned(geometry.smem_bytes);
  config.hStream = reinterpret_cast<CUstream>(stream);
  CUlaunchAttribute attrs[2]{};
  unsigned count = 0;
  if (geometry.cluster[0] * geometry.cluster[1] * geometry.cluster[2] > 1) {
    CUlaunchAttribute& cluster = attrs[count++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = unsigned(geometry.cluster[0]);
    cluster.value.clusterDim.y = unsigned(geometry.cluster[1]);
    cluster.value.clusterDim.z = unsigned(geometry.cluster[2]);
  }
  if (geometry.programmatic && overlap == Overlap::WhereProgrammatic) {
    CUlaunchAttribute& pdl = attrs[count++];
    pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    pdl.value.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = count > 0 ? attrs : nullptr;
  config.numAttrs = count;
  void* args[] = {const_cast<Cl2GemmParams*>(&params)};
  CL2_CU(driver_api().launch_kernel_ex(&config, function, args, nullptr));
}

}  // namespace cl2
