#pragma once
// `export --format cpp`: a header that carries a bundle (its manifest and cubins as byte arrays)
// for programs that ship without the database or bundle files:
//   #include "tuned_gemm.h"   // defines cl2_tuned_bundle
//   cl2_open_embedded(&cl2_tuned_bundle, 0, &handle);
#include <string>

#include "runtime/bundle.hpp"

namespace cl2 {

std::string render_cpp_header(const Bundle& bundle);

}  // namespace cl2
