#include "profile/counters_request.hpp"

#include <fmt/format.h>

namespace cl2 {

std::optional<LtAlgoConfig> recorded_library_algo(const TuningDb& db, std::int64_t device_id, const Problem& problem) {
  for (const auto& baseline : db.baselines(device_id, problem))
    if (baseline.provider == Provider::CublasltAutotune) return baseline.lt_algo;
  return std::nullopt;
}

ProfileReply request_counters(WorkerClient& worker, const KernelRun& kernel,
                              const std::optional<LtAlgoConfig>& library_algo, double timeout_seconds) {
  const WorkerReply reply = worker.request(ProfileRequest{kernel, library_algo, kLtAutotuneAlgorithms}, timeout_seconds);
  if (reply.succeeded()) return profile_reply_from_json(reply.body);
  const CallCounters failed = absent_counters("the worker could not profile: " + reply.error());
  return {failed, Provider::CublasltAutotune, "", std::nullopt, failed};
}

std::string library_description(const ProfileReply& reply) {
  const std::string algo = lt_algo_summary(reply.library_algo, "");
  if (reply.library_detail.empty()) return algo;
  return algo.empty() ? reply.library_detail : fmt::format("{} ({})", algo, reply.library_detail);
}

std::vector<CountersRecord> counters_records(const ProfileReply& reply, std::int64_t device_id, std::int64_t run_id,
                                             const Problem& problem, std::int64_t kernel_id) {
  CountersRecord ours{device_id, run_id, problem, Provider::Ours, kernel_id, "", reply.ours, ""};
  CountersRecord library{device_id,
                         run_id,
                         problem,
                         reply.library,
                         0,
                         library_description(reply),
                         reply.library_counters,
                         ""};
  return {ours, library};
}

}  // namespace cl2
