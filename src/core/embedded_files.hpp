#pragma once
// Files compiled into the binary by cmake/embed_files.cmake: templates/*.cuh, configs/spaces/*.json
// and db/*.sql, addressed by their path relative to the repository root.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cl2 {

struct EmbeddedFile {
  const char* path;
  const char* data;
  std::size_t size;
};

const std::vector<EmbeddedFile>& embedded_files();

std::optional<std::string_view> find_embedded_file(std::string_view path);
std::vector<std::string> embedded_paths_under(std::string_view prefix);

}  // namespace cl2
