#include "profile/profile_run.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/errors.hpp"
#include "db/device_match.hpp"
#include "db/tuning_db.hpp"
#include "gpu/device_query.hpp"
#include "profile/counters_request.hpp"
#include "report/profile_report.hpp"
#include "search/device_limits.hpp"
#include "tune/rebuild.hpp"

namespace cl2 {

namespace {

constexpr double kSetupTimeoutSeconds = 900;    // as tune allows a problem's setup
constexpr double kProfileTimeoutSeconds = 600;  // verification, cuBLASLt's choice, two counted launches

// The worker's answer to `request`; throws where it fails (a UserError where the user can fix it).
nlohmann::json ask(WorkerClient& worker, const WorkerRequest& request, double timeout_seconds, const char* what) {
  WorkerReply reply = worker.request(request, timeout_seconds);
  if (reply.succeeded()) return reply.body;
  if (reply.user_error()) throw UserError(reply.error());
  throw std::runtime_error(fmt::format("the GPU worker could not {}: {}", what, reply.error()));
}

}  // namespace

int run_profile(const ProfileOptions& o) {
  const Problem& problem = o.problem;
  const auto stored = TuningDb::open(o.db_path, DbMode::ReadOnly);  // written only once counters are in hand
  if (!o.fake_gpu)
    if (const std::string reason = gpu_unavailable_reason(o.device); !reason.empty()) throw UserError(reason);
  WorkerClient worker(WorkerOptions{o.device, o.cache_dir, o.fake_gpu, false});
  const DeviceInfo device = hello_reply_from_json(ask(worker, HelloRequest{}, 120, "start")).device;
  const std::int64_t device_id = device_in_db(*stored, device);
  const auto winner = stored->winner(device_id, problem);
  if (!winner)
    throw UserError(fmt::format("{}: no winner for {} on {}; tune the shape first (cuda-l2-tune tune --shapes ...)",
                                o.db_path, problem.text(), device.name));
  std::vector<FamilySpec> extra;
  for (const auto& path : o.space_files) extra.push_back(load_family_file(path));
  const BuiltCandidate built = rebuild_candidate(stored->kernel(winner->kernel_id).value(), problem,
                                                 device_limits(device), extra, KernelCompiler(o.cache_dir));
  const std::optional<LtAlgoConfig> library_algo = recorded_library_algo(*stored, device_id, problem);
  ask(worker, ProblemRequest{problem}, kSetupTimeoutSeconds, "set up the problem");
  const ProfileReply reply =
      request_counters(worker, kernel_run(built, screening_stop_rule()), library_algo, kProfileTimeoutSeconds);
  for (const CallCounters* counters : {&reply.ours, &reply.library_counters})
    if (!counters->measured())
      throw UserError(fmt::format("profile {}: no counters: {}", problem.text(), counters->absent));

  const auto db = TuningDb::open(o.db_path, DbMode::ReadWrite);
  db->transaction([&] {
    const std::int64_t run_id = db->begin_run(o.command_line, "");
    for (const auto& record : counters_records(reply, device_id, run_id, problem, winner->kernel_id))
      db->upsert_counters(record);
    db->finish_run(run_id, "completed");
  });
  const std::string text =
      render_profile(problem, device.name, {Provider::Ours, built.candidate.config.label(), reply.ours},
                     {reply.library, library_description(reply), reply.library_counters});
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace cl2
