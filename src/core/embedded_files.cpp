#include "core/embedded_files.hpp"

namespace cl2 {

std::optional<std::string_view> find_embedded_file(std::string_view path) {
  for (const auto& file : embedded_files())
    if (path == file.path) return std::string_view(file.data, file.size);
  return std::nullopt;
}

std::vector<std::string> embedded_paths_under(std::string_view prefix) {
  std::vector<std::string> paths;
  for (const auto& file : embedded_files()) {
    std::string_view path(file.path);
    if (path.substr(0, prefix.size()) == prefix) paths.emplace_back(path);
  }
  return paths;
}

}  // namespace cl2
