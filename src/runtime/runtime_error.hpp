#pragma once
// An error of the runtime library, with the C API's status for it. The message is one line that
// names the input and the fix; the C API hands it to cl2_last_error().
#include <stdexcept>
#include <string>

#include "../../include/cl2/cl2.h"

namespace cl2 {

struct RuntimeError : std::runtime_error {
  RuntimeError(cl2_status code, const std::string& message) : std::runtime_error(message), status(code) {}
  cl2_status status;
};

}  // namespace cl2
