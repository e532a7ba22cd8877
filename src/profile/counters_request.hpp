#pragma once
// Hardware counters of a problem's winner and of the library's fastest call, asked of the GPU
// worker that holds the problem, and the database rows they make: the one path `profile` and
// `tune --counters` share.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/tuning_db.hpp"
#include "runner/worker_client.hpp"

namespace cl2 {

// The algorithm cuBLASLt-autotune ran when the problem's baselines were measured, where recorded.
std::optional<LtAlgoConfig> recorded_library_algo(const TuningDb& db, std::int64_t device_id, const Problem& problem);

// The worker's counters of `kernel` and of that algorithm (the worker must hold the problem).
// Where the worker fails, both come back absent with its error: counters are an addition, and
// their absence is recorded rather than fatal.
ProfileReply request_counters(WorkerClient& worker, const KernelRun& kernel,
                              const std::optional<LtAlgoConfig>& library_algo, double timeout_seconds);

// What the library call ran and how it was chosen: "algo 66 64x32 ... (the algorithm tune chose)".
std::string library_description(const ProfileReply& reply);

// The rows of a reply: ours, measured on `kernel_id`, and the library call's.
std::vector<CountersRecord> counters_records(const ProfileReply& reply, std::int64_t device_id, std::int64_t run_id,
                                             const Problem& problem, std::int64_t kernel_id);

}  // namespace cl2
