#include "runner/worker_client.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace cl2 {

namespace {

std::string self_executable() {
  std::vector<char> path(4096);
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot find this executable (/proc/self/exe)");
  return std::string(path.data(), std::size_t(n));
}

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

}  // namespace

bool WorkerReply::succeeded() const { return answered && body.value("ok", false); }

std::string WorkerReply::error() const {
  if (!answered || succeeded()) return failure;
  const std::string error = failure_reply_from_json(body).error;
  return error.empty() ? failure : error;
}

bool WorkerReply::user_error() const {
  return answered && !succeeded() && failure_reply_from_json(body).user_error;
}

WorkerClient::WorkerClient(WorkerOptions options) : options_(std::move(options)) {
  // A worker that dies mid-write must not kill the parent with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  log_path_ = fmt::format("{}/worker-{}.log", options_.cache_dir, getpid());
}

WorkerClient::~WorkerClient() {
  stop(false);
  // What a crash left in the log is already in the trial's reason.
  unlink(log_path_.c_str());
}

void WorkerClient::start() {
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot create pipes: {}", std::strerror(errno)));
  const int log_fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (starts_ == 0 ? O_TRUNC : O_APPEND), 0644);
  const std::string exe = self_executable();
  std::vector<std::string> args = {exe, "worker", "--device", std::to_string(options_.device),
                                   "--cache-dir", options_.cache_dir};
  if (options_.fake) args.push_back("--fake-gpu");
  if (options_.trace_kernels) args.push_back("--trace-kernels");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("cannot start the worker: {}", std::strerror(errno)));
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    if (log_fd >= 0) dup2(log_fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  if (log_fd >= 0) close(log_fd);
  close(in_pipe[0]);
  close(out_pipe[1]);
  pid_ = pid;
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  pending_.clear();
  ++starts_;
}

std::string WorkerClient::stderr_tail() const {
  std::ifstream in(log_path_);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::string tail;
  for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
    tail += (tail.empty() ? "" : " | ") + lines[i];
  return tail;
}

std::string WorkerClient::reap(bool kill_first) {
  if (pid_ <= 0) return "";
  if (kill_first) kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  close(to_worker_);
  close(from_worker_);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

void WorkerClient::stop(bool force) {
  if (pid_ <= 0) return;
  if (!force) {
    write_all(to_worker_, to_json(QuitRequest{}).dump() + "\n");
    for (int i = 0; i < 50; ++i) {  // up to 5 s to tear the CUDA context down
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        close(to_worker_);
        close(from_worker_);
        pid_ = -1;
        return;
      }
      usleep(100000);
    }
  }
  reap(true);
}

WorkerReply WorkerClient::request(const WorkerRequest& request, double timeout_seconds) {
  if (pid_ <= 0) start();
  WorkerReply reply;
  auto lose = [&](bool kill_first, const std::string& why) {
    const std::string how = reap(kill_first);
    reply.worker_lost = true;
    const std::string tail = stderr_tail();
    reply.failure = fmt::format("{} (worker {}){}", why, how, tail.empty() ? "" : ": " + tail);
    return reply;
  };
  if (!write_all(to_worker_, to_json(request).dump() + "\n")) return lose(true, "worker stopped reading");
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(long(timeout_seconds * 1000));
  for (;;) {
    if (const auto newline = pending_.find('\n'); newline != std::string::npos) {
      const std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      reply.answered = true;
      reply.body = nlohmann::json::parse(line);
      if (!reply.succeeded()) {
        // The worker exits after a sticky error; collect it now so the next request starts anew.
        const FailureReply failed = failure_reply_from_json(reply.body);
        if (failed.sticky) lose(false, failed.error);
      }
      return reply;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      reply.timed_out = true;
      return lose(true, fmt::format("no answer within {:.0f} s (watchdog)", timeout_seconds));
    }
    pollfd fd{from_worker_, POLLIN, 0};
    const int ready = poll(&fd, 1, int(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[65536];
    const ssize_t n = read(from_worker_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return lose(false, "worker died");
    pending_.append(buffer, std::size_t(n));
  }
}

}  // namespace cl2
