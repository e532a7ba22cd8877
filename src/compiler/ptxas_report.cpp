#include "compiler/ptxas_report.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace cl2 {

std::string PtxasReport::rejection() const {
  if (spills())
    return fmt::format("spills registers ({} bytes stored, {} loaded)", spill_store_bytes,
                       spill_load_bytes);
  if (!warnings.empty()) return "ptxas warning: " + warnings.front();
  return "";
}

PtxasReport parse_ptxas_report(const std::string& log) {
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  PtxasReport report;
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, frame)) {
      report.stack_bytes = std::stoi(m[1]);
      report.spill_store_bytes = std::stoi(m[2]);
      report.spill_load_bytes = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, used)) report.registers = std::stoi(m[1]);
    if (line.find("ptxas info") != std::string::npos && std::regex_search(line, m, smem))
      report.smem_static_bytes = std::stoi(m[1]);
    // "--warn-on-spills" repeats the spill figures as a warning; the counts above carry them.
    if (line.find("ptxas warning") != std::string::npos &&
        line.find("spill") == std::string::npos) {
      const auto colon = line.find(':');
      report.warnings.push_back(colon == std::string::npos ? line : line.substr(colon + 2));
    }
  }
  return report;
}

}  // namespace cl2
