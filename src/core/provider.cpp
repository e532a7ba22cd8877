#include "core/provider.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <tuple>

namespace cl2 {
namespace {

constexpr std::array<std::tuple<Provider, std::string_view, std::string_view>, 8> kProviders{{
    {Provider::Ours, "ours", "ours"},
    {Provider::Runtime, "runtime", "runtime (libcl2)"},
    {Provider::CublasNn, "cublas_nn", "cuBLAS-nn"},
    {Provider::CublasTn, "cublas_tn", "cuBLAS-tn"},
    {Provider::CublasMax, "cublas_max", "cuBLAS-max"},
    {Provider::CublasltHeuristic, "cublaslt_heuristic", "cuBLASLt-heuristic"},
    {Provider::CublasltAutotune, "cublaslt_autotune", "cuBLASLt-autotune"},
    {Provider::Torch, "torch", "torch.matmul"},
}};

const auto& entry(Provider provider) {
  for (const auto& row : kProviders)
    if (std::get<0>(row) == provider) return row;
  throw std::invalid_argument("Provider value out of range");
}

}  // namespace

std::string_view to_string(Provider provider) { return std::get<1>(entry(provider)); }

std::string_view provider_title(Provider provider) { return std::get<2>(entry(provider)); }

std::optional<Provider> find_provider(std::string_view name) {
  for (const auto& [provider, stored, title] : kProviders)
    if (stored == name) return provider;
  return std::nullopt;
}

Provider parse_provider(std::string_view name) {
  if (const auto provider = find_provider(name)) return *provider;
  throw std::invalid_argument("unknown provider '" + std::string(name) + "'");
}

std::string provider_names(const std::vector<Provider>& providers) {
  std::string names;
  for (const Provider provider : providers) names += (names.empty() ? "" : ", ") + std::string(to_string(provider));
  return names;
}

Provider cublas_gemm_ex(Layout b_layout) {
  return b_layout == Layout::TN ? Provider::CublasTn : Provider::CublasNn;
}

}  // namespace cl2
