#pragma once
// Errors the user can cause and fix. Their message is one line that names the input and the fix;
// main() prints it as "cuda-l2-tune: <message>" and exits with status 2. Everything else that
// throws is a bug or an environment failure and exits with status 1.
#include <stdexcept>
#include <string>

namespace cl2 {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace cl2
