#include "db/records.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace cl2 {
namespace {

// The spellings stored in trials.status (db/schema.sql checks the same list).
constexpr std::array<std::pair<TrialStatus, std::string_view>, 7> kTrialStatusNames{{
    {TrialStatus::Ok, "ok"},
    {TrialStatus::VerifyFailed, "verify_failed"},
    {TrialStatus::CompileFailed, "compile_failed"},
    {TrialStatus::Rejected, "rejected"},
    {TrialStatus::LaunchFailed, "launch_failed"},
    {TrialStatus::Fault, "fault"},
    {TrialStatus::Timeout, "timeout"},
}};

}  // namespace

std::string_view to_string(TrialStatus status) {
  for (const auto& [value, name] : kTrialStatusNames)
    if (value == status) return name;
  throw std::invalid_argument("TrialStatus value out of range");
}

TrialStatus parse_trial_status(std::string_view text) {
  for (const auto& [value, name] : kTrialStatusNames)
    if (name == text) return value;
  throw std::invalid_argument("unknown trial status '" + std::string(text) + "'");
}

std::optional<LtAlgoConfig> WinnerRow::lt_algo(Provider provider) const {
  if (provider == Provider::CublasltHeuristic) return cublaslt_heuristic_algo;
  if (provider == Provider::CublasltAutotune) return cublaslt_autotune_algo;
  return std::nullopt;
}

std::vector<std::string> WinnerRow::library_kernels_of(Provider provider) const {
  const auto found = library_kernels.find(provider);
  return found != library_kernels.end() ? found->second : std::vector<std::string>{};
}

}  // namespace cl2
