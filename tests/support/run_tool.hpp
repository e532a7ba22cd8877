#pragma once
// Test support: run the cuda-l2-tune binary (or any command) and collect its exit status and
// output; make and remove scratch folders.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace cl2_test {

struct CommandResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder under the system temp dir, removed when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("cl2-test-" + std::to_string(rd()) + std::to_string(getpid()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

// Runs `command` through the shell with stdout and stderr captured to files in `scratch`.
inline CommandResult run_command(const std::string& command, const ScratchDir& scratch) {
  const std::string out = scratch.file("stdout.txt"), err = scratch.file("stderr.txt");
  const int raw = std::system((command + " >" + out + " 2>" + err).c_str());
  CommandResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  result.out = read_all(out);
  result.err = read_all(err);
  return result;
}

// Where the built tool, the source tree and the refusing libcupti stand-in are: fixed at build
// time, overridable (CL2_TEST_BINARY, CL2_TEST_SOURCE_DIR, CL2_TEST_FAKE_CUPTI) for running the
// test binary on another machine, such as the GPU host.
inline std::string tool_binary() {
  const char* path = std::getenv("CL2_TEST_BINARY");
  return path && *path ? path : CL2_TUNE_BINARY;
}

inline std::string fake_cupti_library() {
  const char* path = std::getenv("CL2_TEST_FAKE_CUPTI");
  return path && *path ? path : CL2_FAKE_CUPTI_LIBRARY;
}

inline std::string source_path(const std::string& relative) {
  const char* dir = std::getenv("CL2_TEST_SOURCE_DIR");
  return std::string(dir && *dir ? dir : CL2_SOURCE_DIR) + "/" + relative;
}

// The tool itself, with a private kernel cache, or the one CL2_TEST_SHARED_CACHE names (a GPU
// session that carries precompiled kernels sets it, so the GPU tests do not compile again).
inline CommandResult run_tool(const std::string& args, const ScratchDir& scratch,
                              const std::string& env = "") {
  const char* shared = std::getenv("CL2_TEST_SHARED_CACHE");
  const std::string cache = shared && *shared ? std::string(shared) : scratch.file("cache");
  return run_command(env + " CUDA_L2_TUNE_CACHE=" + cache + " " + tool_binary() + " " + args, scratch);
}

// Arguments that select a test family of tests/data/spaces (tiny kernels, quick to compile).
inline std::string test_family_args(const std::string& family) {
  return " --space-file " + source_path("tests/data/spaces/" + family + ".json") + " --family " + family;
}

inline int line_count(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace cl2_test
