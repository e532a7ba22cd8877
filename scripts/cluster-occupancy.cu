// How many clusters of 1 to 8 CTAs the GPU runs at once when each CTA needs a whole SM's shared
// memory (as the sm90 family's CTAs do): the figures behind RESIDENT_CLUSTERS and
// DSMEM_RESIDENT_CTAS in configs/spaces/sm90.json. Build and run on the GPU machine:
//   nvcc -arch=sm_90a -o /tmp/cluster-occupancy scripts/cluster-occupancy.cu && /tmp/cluster-occupancy
#include <cstdio>

#include <cuda_runtime.h>

__global__ void one_cta_per_sm() {}

int main() {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "no GPU\n");
    return 1;
  }
  const int smem = int(prop.sharedMemPerBlockOptin);
  cudaFuncSetAttribute(one_cta_per_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  std::printf("%s, %d SMs, %d bytes of shared memory per CTA\n", prop.name, prop.multiProcessorCount, smem);
  for (int threads : {256, 384})
    for (int cluster = 1; cluster <= 8; ++cluster) {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(cluster * 1024);
      config.blockDim = dim3(threads);
      config.dynamicSmemBytes = smem;
      cudaLaunchAttribute attribute;
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = cluster;
      attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
      config.attrs = &attribute;
      config.numAttrs = 1;
      int clusters = 0;
      const cudaError_t status = cudaOccupancyMaxActiveClusters(&clusters, one_cta_per_sm, &config);
      std::printf("threads %d cluster %d: %d clusters at once (%d CTAs)%s%s\n", threads, cluster, clusters,
                  clusters * cluster, status == cudaSuccess ? "" : " error: ",
                  status == cudaSuccess ? "" : cudaGetErrorString(status));
    }
  return 0;
}
