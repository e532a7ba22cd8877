#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "core/errors.hpp"
#include "gpu/cuda_check.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

namespace {

void send(FILE* out, const nlohmann::json& reply) {
  const std::string line = reply.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

template <class... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};

// The backend's reply to one request other than quit.
nlohmann::json answer(WorkerBackend& backend, const WorkerRequest& request) {
  return std::visit(
      Overloaded{[&](const HelloRequest&) { return to_json(backend.hello()); },
                 [&](const ProblemRequest& r) { return to_json(backend.set_problem(r)); },
                 [&](const BaselinesRequest& r) { return to_json(backend.baselines(r)); },
                 [&](const TrialRequest& r) { return to_json(backend.trials(r)); },
                 [&](const FinalRequest& r) { return to_json(backend.final_round(r)); },
                 [&](const ProfileRequest& r) { return to_json(backend.profile(r)); },
                 [&](const QuitRequest&) -> nlohmann::json { throw std::logic_error("quit has no reply"); }},
      request);
}

}  // namespace

int run_worker(const WorkerOptions& options) {
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* out = fdopen(protocol_fd, "w");
  if (!out) return 1;
  std::unique_ptr<WorkerBackend> backend;
  try {
    backend = options.fake ? make_fake_backend(options) : make_gpu_backend(options);
  } catch (const std::exception& e) {
    send(out, to_json(FailureReply{e.what()}));
    return 1;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json request;
    try {
      request = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      send(out, to_json(FailureReply{fmt::format("bad request: {}", e.what())}));
      continue;
    }
    try {
      const WorkerRequest typed = worker_request_from_json(request);
      if (std::holds_alternative<QuitRequest>(typed)) break;
      send(out, answer(*backend, typed));
    } catch (const GpuError& e) {
      send(out, to_json(FailureReply{e.what(), false, e.sticky}));
      if (e.sticky) {
        std::fflush(nullptr);
        _exit(3);  // the CUDA context is unusable; the parent starts a new worker
      }
    } catch (const UserError& e) {
      send(out, to_json(FailureReply{e.what(), true}));
    } catch (const std::exception& e) {
      send(out, to_json(FailureReply{e.what()}));
    }
  }
  return 0;
}

}  // namespace cl2
