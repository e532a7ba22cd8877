#include "codegen/codegen.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/embedded_files.hpp"
#include "core/hash.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

namespace {

const std::string& abi_header() {
  static const std::string text = [] {
    auto file = find_embedded_file("templates/cl2_abi.cuh");
    if (!file) throw std::logic_error("templates/cl2_abi.cuh is not embedded");
    return std::string(*file);
  }();
  return text;
}

// Replaces each `#include "cl2_*.cuh"` line with that embedded template (once per file), so the
// generated source is self-contained and its hash covers every line NVRTC compiles.
std::string inline_includes(const std::string& text, const std::string& origin,
                            std::set<std::string>& seen) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"(cl2_[A-Za-z0-9_]+\.cuh)"\s*$)re");
  std::string out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch match;
    if (!std::regex_match(line, match, include_line)) {
      out += line + "\n";
      continue;
    }
    const std::string name = match[1];
    if (seen.insert(name).second) {
      auto file = find_embedded_file("templates/" + name);
      if (!file) throw std::invalid_argument(fmt::format("{}:{}: no template {}", origin, number, name));
      out += fmt::format("#line 1 \"{}\"\n", name) + inline_includes(std::string(*file), name, seen);
    }
    out += fmt::format("#line {} \"{}\"\n", number + 1, origin);
  }
  return out;
}

}  // namespace

KernelSource generate_source(const FamilySpec& family, const KernelConfig& config, Layout layout,
                             Accum accum, Epilogue epilogue) {
  std::string text = fmt::format("// cuda-l2-tune generated kernel: family {}\n", family.name);
  text += fmt::format("#define CL2_LAYOUT_TN {}\n", layout == Layout::TN ? 1 : 0);
  text += fmt::format("#define CL2_ACCUM_F16 {}\n", accum == Accum::F16 ? 1 : 0);
  if (epilogue == Epilogue::Bias) text += "#define CL2_BIAS 1\n";
  ExprVariables vars;
  vars["LAYOUT_TN"] = std::int64_t(layout == Layout::TN);
  vars["ACCUM_F16"] = std::int64_t(accum == Accum::F16);
  for (const auto& [name, value] : config.params) {
    vars[name] = value;
    if (!family.runtime_params.count(name)) text += fmt::format("#define CL2_{} {}\n", name, value);
  }
  // Defines may only use params, layout and accum: they become compile-time constants, and must
  // not depend on the shape or the device, or one binary could not serve every shape.
  for (const auto& [name, expr] : family.defines) {
    const ExprValue value = expr.eval(vars);
    vars[name] = value;
    text += std::holds_alternative<double>(value)
                ? fmt::format("#define CL2_{} {}\n", name, std::get<double>(value))
                : fmt::format("#define CL2_{} {}\n", name, std::get<std::int64_t>(value));
  }
  text += "#line 1 \"cl2_abi.cuh\"\n" + abi_header();
  std::set<std::string> seen = {"cl2_abi.cuh"};
  text += fmt::format("#line 1 \"{}\"\n", family.template_path) +
          inline_includes(family.template_source, family.template_path, seen);
  return {text, content_hash(text)};
}

std::string cuda_include_dir() {
  std::vector<std::string> roots;
  for (const char* name : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* value = std::getenv(name); value && *value) roots.push_back(std::string(value) + "/include");
  roots.push_back("/usr/local/cuda/include");
  roots.push_back(CL2_CUDA_INCLUDE_DIR);
  for (const auto& root : roots)
    if (std::filesystem::exists(root + "/cuda.h")) return root;
  return "";
}

std::vector<std::string> compile_options(const FamilySpec& family, const std::string& arch) {
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17",
                                      "--ptxas-options=--verbose", "--ptxas-options=--warn-on-spills",
                                      "-default-device"};
  static const std::string include_dir = cuda_include_dir();
  if (!include_dir.empty()) options.push_back("--include-path=" + include_dir);
  options.insert(options.end(), family.compile_options.begin(), family.compile_options.end());
  return options;
}

}  // namespace cl2
