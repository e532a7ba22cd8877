#pragma once
// The parent's handle on its GPU worker process (DESIGN.md: a variant that faults or hangs costs
// only that worker). The worker is this same binary run as `cuda-l2-tune worker`; requests and
// replies are JSON lines over pipes; its stderr goes to a log file whose tail explains a crash.
// A request that gets no reply within its timeout kills the worker (watchdog); a worker that dies
// or reports a sticky CUDA error is reaped, and the next request starts a fresh one.
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>

#include "runner/protocol.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

struct WorkerReply {
  bool answered = false;     // a reply line arrived
  nlohmann::json body;       // the reply (when answered): the request's reply or a FailureReply
  bool worker_lost = false;  // the worker died, hung, or hit a sticky error: it is gone now
  bool timed_out = false;
  std::string failure;       // why it was lost, with the tail of its stderr

  // Answered with "ok": the body is the request's own reply.
  bool succeeded() const;
  // Why the request failed: the worker's error where it answered, else why it was lost.
  std::string error() const;
  // The worker answered that the user can fix it (e.g. a shape too large for the GPU's memory).
  bool user_error() const;
};

class WorkerClient {
 public:
  explicit WorkerClient(WorkerOptions options);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  WorkerReply request(const WorkerRequest& request, double timeout_seconds);
  bool running() const { return pid_ > 0; }
  int restarts() const { return starts_ > 0 ? starts_ - 1 : 0; }

 private:
  void start();
  void stop(bool force);
  std::string reap(bool kill_first);
  std::string stderr_tail() const;

  WorkerOptions options_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string log_path_;
  std::string pending_;  // bytes read past the last full line
  int starts_ = 0;
};

}  // namespace cl2
