#include "gpu/call_graph.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/timing.hpp"

namespace cl2 {

CallGraph::CallGraph(const TimedCall& call, int copies, cudaStream_t stream) {
  CL2_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < copies; ++i) call.launch_number(i)(stream);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(stream, &broken);
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  CL2_CUDA(cudaStreamEndCapture(stream, &graph_));
  if (const cudaError_t status = cudaGraphInstantiate(&exec_, graph_, 0); status != cudaSuccess) {
    cudaGraphDestroy(graph_);  // the destructor of a throwing constructor does not run
    throw_cuda_error(status, "cudaGraphInstantiate", __FILE__, __LINE__);
  }
}

CallGraph::~CallGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

void CallGraph::launch(cudaStream_t stream) const { CL2_CUDA(cudaGraphLaunch(exec_, stream)); }

void CallGraph::upload(cudaStream_t stream) const { CL2_CUDA(cudaGraphUpload(exec_, stream)); }

}  // namespace cl2
