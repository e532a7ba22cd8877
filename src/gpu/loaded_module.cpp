#include "gpu/loaded_module.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/driver_api.hpp"

namespace cl2 {

LoadedModule::LoadedModule(const std::string& cubin_bytes) {
  CL2_CU(driver_api().module_load_data(&module_, cubin_bytes.data()));
}

LoadedModule LoadedModule::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read cubin {}", path));
  std::stringstream bytes;
  bytes << in.rdbuf();
  return LoadedModule(bytes.str());
}

LoadedModule::~LoadedModule() {
  if (module_) driver_api().module_unload(module_);
}

CUfunction LoadedModule::function(const char* name) const {
  CUfunction fn = nullptr;
  CL2_CU(driver_api().module_get_function(&fn, module_, name));
  return fn;
}

}  // namespace cl2
