#pragma once
// What answers the worker's requests: the GPU backend, or a fake one that lets the CPU tests drive
// the whole tuning loop (process management, resume, fault recovery) without a GPU.
#include <memory>
#include <string>

#include "runner/protocol.hpp"

namespace cl2 {

// One method per request of protocol.hpp. Each throws GpuError on CUDA failures (a sticky one
// ends the worker after its reply) and UserError for what the user can fix.
class WorkerBackend {
 public:
  virtual ~WorkerBackend() = default;
  virtual HelloReply hello() = 0;
  virtual ProblemReply set_problem(const ProblemRequest& request) = 0;
  virtual BaselinesReply baselines(const BaselinesRequest& request) = 0;
  virtual TrialsReply trials(const TrialRequest& request) = 0;
  virtual FinalReply final_round(const FinalRequest& request) = 0;
  virtual ProfileReply profile(const ProfileRequest& request) = 0;
};

struct WorkerOptions {
  int device = 0;
  std::string cache_dir;
  bool fake = false;
  // Launch each timed call once more with CUPTI's kernel records on (tune --trace-kernels); off,
  // the worker never loads CUPTI.
  bool trace_kernels = false;
};

std::unique_ptr<WorkerBackend> make_gpu_backend(const WorkerOptions& options);
std::unique_ptr<WorkerBackend> make_fake_backend(const WorkerOptions& options);

// The worker process's main loop: requests on stdin, replies on the original stdout (the loop
// moves stdout to stderr first, so library chatter cannot corrupt the protocol). Returns the exit
// status.
int run_worker(const WorkerOptions& options);

}  // namespace cl2
