#pragma once
// A cubin loaded into the current context (driver API), unloaded on destruction.
#include <cuda.h>

#include <string>

namespace cl2 {

class LoadedModule {
 public:
  explicit LoadedModule(const std::string& cubin_bytes);
  static LoadedModule from_file(const std::string& path);
  ~LoadedModule();
  LoadedModule(LoadedModule&& other) noexcept : module_(other.module_) { other.module_ = nullptr; }
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  LoadedModule& operator=(LoadedModule&&) = delete;

  CUfunction function(const char* name) const;

 private:
  CUmodule module_ = nullptr;
};

}  // namespace cl2
