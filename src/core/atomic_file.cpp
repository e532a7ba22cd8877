#include "core/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <thread>

#include "core/errors.hpp"

namespace cl2 {

std::filesystem::path temporary_name_for(const std::filesystem::path& path) {
  char host[64] = {};
  gethostname(host, sizeof(host) - 1);
  thread_local std::mt19937_64 random{std::random_device{}()};
  return path.string() + fmt::format(".tmp.{}.{}.{:x}.{:x}", host, getpid(),
                                     std::hash<std::thread::id>{}(std::this_thread::get_id()), random());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes, std::string_view fix) {
  const std::filesystem::path tmp = temporary_name_for(path);
  auto failed = [&] { return UserError(fmt::format("{}: cannot write the file; {}", path.string(), fix)); };
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw failed();
  }
  std::error_code error;
  std::filesystem::rename(tmp, path, error);
  if (error) {
    std::filesystem::remove(tmp, error);
    throw failed();
  }
}

void write_directory_atomically(const std::filesystem::path& dir,
                                const std::function<void(const std::filesystem::path&)>& fill, std::string_view fix) {
  const std::filesystem::path tmp = temporary_name_for(dir);
  auto failed = [&] { return UserError(fmt::format("{}: cannot write the folder; {}", dir.string(), fix)); };
  std::error_code error;
  try {
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), error);
    if (!std::filesystem::create_directory(tmp, error)) throw failed();
    fill(tmp);
    // A folder cannot be renamed over another: the old one steps aside first, and is removed once
    // the new one has its name.
    const std::filesystem::path old = temporary_name_for(dir);
    const bool replacing = std::filesystem::exists(dir);
    if (replacing) {
      std::filesystem::rename(dir, old, error);
      if (error) throw failed();
    }
    std::filesystem::rename(tmp, dir, error);
    if (error) {
      if (replacing) std::filesystem::rename(old, dir, error);
      throw failed();
    }
    if (replacing) std::filesystem::remove_all(old, error);
  } catch (...) {
    std::filesystem::remove_all(tmp, error);
    throw;
  }
}

}  // namespace cl2
