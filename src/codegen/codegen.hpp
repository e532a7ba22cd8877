#pragma once
// Turns (family, config, problem kind) into CUDA source and NVRTC options. The source is the
// configuration as #defines, the kernel ABI, then the family template: the same inputs always give
// the same text, and the text's hash is the kernel's identity in the cache and the database.
#include <string>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

struct KernelSource {
  std::string text;
  std::string hash;  // content hash of text
};

// Defines emitted: CL2_<PARAM> for each compile-time param, CL2_<NAME> for each family define,
// CL2_LAYOUT_TN (1|0), CL2_ACCUM_F16 (1|0), and CL2_BIAS 1 for Epilogue::Bias only. Runtime params are
// left out: they are kernel arguments, so configs differing only in them share one binary.
KernelSource generate_source(const FamilySpec& family, const KernelConfig& config, Layout layout,
                             Accum accum, Epilogue epilogue = Epilogue::Plain);

// The toolkit's include directory ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda, the build's), or "".
std::string cuda_include_dir();

// Options for NVRTC: the architecture, C++17, ptxas verbosity (its report gives registers, spills
// and shared memory), the CUDA include directory where found, then the family's own options.
std::vector<std::string> compile_options(const FamilySpec& family, const std::string& arch);

}  // namespace cl2
