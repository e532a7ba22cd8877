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
    send(out, {{"ok", false}, {"error", e.what()}});
    return 1;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json request;
    try {
      request = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      send(out, {{"ok", false}, {"error", fmt::format("bad request: {}", e.what())}});
      continue;
    }
    if (request.value("op", "") == "quit") break;
    try {
      send(out, backend->handle(request));
    } catch (const GpuError& e) {
      send(out, {{"ok", false}, {"error", e.what()}, {"sticky", e.sticky}});
      if (e.sticky) {
        std::fflush(nullptr);
        _exit(3);  // the CUDA context is unusable; the parent starts a new worker
      }
    } catch (const UserError& e) {
      send(out, {{"ok", false}, {"error", e.what()}, {"user_error", true}});
    } catch (const std::exception& e) {
      send(out, {{"ok", false}, {"error", e.what()}});
    }
  }
  return 0;
}

}  // namespace cl2
