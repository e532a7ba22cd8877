#include "core/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <thread>

#include "core/errors.hpp"

namespace cl2 {

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes, std::string_view fix) {
  char host[64] = {};
  gethostname(host, sizeof(host) - 1);
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::filesystem::path tmp =
      path.string() + fmt::format(".tmp.{}.{}.{:x}.{:x}", host, getpid(),
                                  std::hash<std::thread::id>{}(std::this_thread::get_id()), random());
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

}  // namespace cl2
