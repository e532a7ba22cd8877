#include "compiler/kernel_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/atomic_file.hpp"
#include "core/hash.hpp"
#include "core/parallel_for.hpp"

namespace cl2 {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kCacheFix = "check that the kernel cache folder (--cache-dir, $CUDA_L2_TUNE_CACHE) is writable";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string log(size, '\0');
  if (size > 0) nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

nlohmann::json report_json(const CompiledKernel& k) {
  return {{"ok", k.ok},
          {"log", k.log},
          {"registers", k.report.registers},
          {"stack_bytes", k.report.stack_bytes},
          {"spill_store_bytes", k.report.spill_store_bytes},
          {"spill_load_bytes", k.report.spill_load_bytes},
          {"smem_static_bytes", k.report.smem_static_bytes},
          {"warnings", k.report.warnings}};
}

}  // namespace

std::string nvrtc_version_text() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string default_cache_dir() {
  if (const char* dir = std::getenv("CUDA_L2_TUNE_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/cuda-l2-tune";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/cuda-l2-tune";
  return ".cuda-l2-tune-cache";
}

KernelCompiler::KernelCompiler(std::string cache_dir) : cache_dir_(std::move(cache_dir)) {
  std::error_code ec;
  fs::create_directories(cache_dir_, ec);
  if (ec || access(cache_dir_.c_str(), W_OK) != 0)
    throw UserError(fmt::format("{}: cannot write the kernel cache directory; set "
                                "CUDA_L2_TUNE_CACHE or --cache-dir to a writable folder",
                                cache_dir_));
}

std::string KernelCompiler::cache_key(const CompileJob& job) const {
  ContentHash hash;
  hash.add_field(job.source.hash).add_field(job.arch).add_field(nvrtc_version_text());
  // The include path differs between machines but not the output: generated sources include no
  // headers, so it stays out of the key and a cache built on one machine serves another.
  for (const auto& option : job.options)
    if (option.rfind("--include-path=", 0) != 0) hash.add_field(option);
  return hash.hex();
}

CompiledKernel KernelCompiler::compile(const CompileJob& job) const {
  const auto start = std::chrono::steady_clock::now();
  CompiledKernel result;
  result.cache_key = cache_key(job);
  const fs::path base = fs::path(cache_dir_) / result.cache_key;
  const fs::path cubin_path = base.string() + ".cubin";
  const fs::path meta_path = base.string() + ".json";
  if (fs::exists(meta_path)) {
    try {
      const auto meta = nlohmann::json::parse(read_file(meta_path));
      result.ok = meta.at("ok").get<bool>();
      if (!result.ok || fs::exists(cubin_path)) {
        result.log = meta.at("log").get<std::string>();
        result.report = parse_ptxas_report(result.log);
        result.cubin_path = result.ok ? cubin_path.string() : "";
        result.from_cache = true;
        return result;
      }
    } catch (const std::exception&) {
      // A damaged sidecar is recompiled over.
    }
  }
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, job.source.text.c_str(), "cl2_kernel.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    throw std::runtime_error("nvrtcCreateProgram failed");
  std::vector<const char*> options;
  for (const auto& option : job.options) options.push_back(option.c_str());
  const nvrtcResult status = nvrtcCompileProgram(program, int(options.size()), options.data());
  result.log = program_log(program);
  result.ok = status == NVRTC_SUCCESS;
  if (result.ok) {
    size_t size = 0;
    nvrtcGetCUBINSize(program, &size);
    std::string cubin(size, '\0');
    nvrtcGetCUBIN(program, cubin.data());
    write_file_atomically(cubin_path, cubin, kCacheFix);
    result.cubin_path = cubin_path.string();
  } else if (result.log.empty()) {
    result.log = nvrtcGetErrorString(status);
  }
  nvrtcDestroyProgram(&program);
  result.report = parse_ptxas_report(result.log);
  write_file_atomically(meta_path, report_json(result).dump(1), kCacheFix);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<CompiledKernel> KernelCompiler::compile_all(
    const std::vector<CompileJob>& jobs, unsigned threads,
    const std::function<void(std::size_t, const CompiledKernel&)>& on_done) const {
  std::vector<CompiledKernel> results(jobs.size());
  std::mutex report_mutex;
  parallel_for(jobs.size(), threads, [&](std::size_t i) {
    results[i] = compile(jobs[i]);
    if (on_done) {
      std::lock_guard lock(report_mutex);
      on_done(i, results[i]);
    }
  });
  return results;
}

}  // namespace cl2
