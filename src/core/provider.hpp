#pragma once
// Who computed a timed GEMM: our kernel, the runtime library dispatching to it (bench only), or one
// of the implementations they are compared with. The names are what the database, the exports,
// bench.csv, speedups.csv and run.json hold; they are spelled here only and never change, so
// existing databases and committed results keep reading.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace cl2 {

// In report order.
enum class Provider {
  Ours,               // "ours": the tuned kernel
  Runtime,            // "runtime": libcl2's dispatch (exact, nearby tuned shapes, or cuBLASLt) as a program calls it
  CublasNn,           // "cublas_nn": cublasGemmEx reading B as NN
  CublasTn,           // "cublas_tn": cublasGemmEx reading B as TN
  CublasMax,          // "cublas_max": the faster of the two, derived, never measured itself
  CublasltHeuristic,  // "cublaslt_heuristic": cuBLASLt's first algorithm for the problem
  CublasltAutotune,   // "cublaslt_autotune": the fastest of the algorithms the heuristic offers
  Torch,              // "torch": torch.matmul, timed by scripts/torch_bench.py
};

// How many of the cuBLASLt heuristic's algorithms cuBLASLt-autotune times (DESIGN.md: up to 64).
inline constexpr int kLtAutotuneAlgorithms = 64;

std::string_view to_string(Provider provider);  // the stored name: "cublaslt_autotune"
std::string_view provider_title(Provider provider);  // the name tables show: "cuBLASLt-autotune"
// nullopt for a name that is no provider's.
std::optional<Provider> find_provider(std::string_view name);
// For names this program wrote itself (database rows, worker replies): throws
// std::invalid_argument naming the unknown name.
Provider parse_provider(std::string_view name);

// "ours, cublas_nn, ...": the names of `providers`, for messages that list the choices.
std::string provider_names(const std::vector<Provider>& providers);

// cublasGemmEx reading B as `b_layout`.
Provider cublas_gemm_ex(Layout b_layout);

}  // namespace cl2
