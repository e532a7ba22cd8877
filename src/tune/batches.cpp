#include "tune/batches.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "db/device_match.hpp"
#include "search/seeds.hpp"
#include "tune/clean_plan.hpp"

namespace cl2 {

namespace {

// Enough batches that the GPU waits for an eighth of the compiling at most; a run of fewer shapes
// than twice this is one batch.
constexpr std::size_t kBatches = 8;
// Without seeds the first batch is only this fraction of the shapes, so that the GPU starts sooner:
// a shape's planning and compiling take about a sixth of its tuning on 16 cores (0.6 CPU-s to plan,
// a few new kernels at 0.275 CPU-s, against 0.6-1.2 s on the GPU), so the next batch, 4-5 times as
// large, is still ready in time.
constexpr std::size_t kFirstShare = 32;

// The same GPU model, whatever the software versions: a winner found under an older driver is
// still a good first guess.
bool same_gpu(const DeviceInfo& x, const DeviceInfo& y) {
  return x.name == y.name && x.cc_major == y.cc_major && x.cc_minor == y.cc_minor && x.num_sms == y.num_sms;
}

// Per problem, the seeds: the winners of the nearest shapes that `db` holds for `device`, none from
// `left_out` (none at all when the database has not seen this GPU).
std::vector<std::vector<KernelConfig>> seeds_from_db(const TuningDb& db, const DeviceInfo& device,
                                                     const std::vector<Problem>& problems, std::size_t count,
                                                     const std::vector<Problem>& left_out) {
  std::vector<std::pair<Problem, KernelConfig>> tuned;
  for (const auto& row : db.winner_rows())
    if (same_gpu(row.device, device) &&
        std::find(left_out.begin(), left_out.end(), row.winner.problem) == left_out.end())
      tuned.emplace_back(row.winner.problem, KernelConfig::from_json(row.kernel.config_json));
  std::vector<std::vector<KernelConfig>> seeds;
  for (const auto& problem : problems) seeds.push_back(nearest_winners(tuned, problem, count));
  return seeds;
}

// Linux keeps a nice value per thread, and the threads this one starts (the compile pool) take it.
void lower_this_thread_priority() {
  constexpr int kBackgroundNice = 10;
  setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), kBackgroundNice);  // best effort: no harm if refused
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<Problem> batch_problems(const BatchPlan& plan, std::size_t batch) {
  return {plan.problems.begin() + std::ptrdiff_t(plan.begin(batch)),
          plan.problems.begin() + std::ptrdiff_t(plan.ends[batch])};
}

}  // namespace

BatchPlan plan_batches(const std::vector<Problem>& listed, std::size_t seeds) {
  BatchPlan plan;
  plan.seeded = seeds > 0;
  if (listed.size() < 2 * kBatches) {
    plan.problems = listed;
    plan.ends = {listed.size()};
    return plan;
  }
  // With seeds, kBatches equal batches; without, a small first one and kBatches - 1 for the rest.
  const std::size_t first = plan.seeded ? (listed.size() + kBatches - 1) / kBatches
                                        : (listed.size() + kFirstShare - 1) / kFirstShare;
  const std::size_t size = plan.seeded ? first : (listed.size() - first + kBatches - 2) / (kBatches - 1);
  for (std::size_t end = first; end < listed.size(); end += size) plan.ends.push_back(end);
  plan.ends.push_back(listed.size());
  if (!plan.seeded) {
    plan.problems = listed;
    return plan;
  }
  // Every kBatches-th shape first (a first batch spread over the file, whose winners seed the
  // rest), then the others in file order.
  for (std::size_t i = 0; i < listed.size(); i += kBatches) plan.problems.push_back(listed[i]);
  for (std::size_t i = 0; i < listed.size(); ++i)
    if (i % kBatches != 0) plan.problems.push_back(listed[i]);
  return plan;
}

std::vector<Problem> untuned_first(const std::vector<Problem>& listed, const TuningDb& db, const DeviceInfo& device) {
  const auto device_id = device_with_fingerprint(db, device);
  if (!device_id) return listed;
  std::vector<Problem> untuned, tuned;
  for (const auto& problem : listed) (db.winner(*device_id, problem) ? tuned : untuned).push_back(problem);
  untuned.insert(untuned.end(), tuned.begin(), tuned.end());
  return untuned;
}

std::vector<std::vector<BuiltCandidate>> compile_stage(const TuneOptions& options,
                                                       const std::vector<Problem>& problems,
                                                       const std::vector<const FamilySpec*>& families,
                                                       const DeviceLimits& limits, const KernelCompiler& compiler,
                                                       BuildCounts& counts,
                                                       const std::vector<std::vector<KernelConfig>>& seeds,
                                                       Progress& progress, const std::string& label,
                                                       bool foreground) {
  const SearchPlan search = options.search();
  // Said once planning is done: a shape that no variant fits stops the run during planning, with
  // its one-line error and nothing before it.
  bool said = false;
  const auto say_compiling = [&] {
    if (foreground && !std::exchange(said, true))
      progress.line(fmt::format("{}planned {} shapes; compiling for {} (cache {})", label, problems.size(),
                                limits.nvrtc_arch(), options.cache_dir));
  };
  CleanPlanStats stats;
  auto built = plan_clean(
      problems, families, limits, search.planned, compiler, stats, seeds,
      [&](std::size_t done, std::size_t total) {
        say_compiling();
        if (foreground) progress.status(fmt::format("  compiled {}/{}", done, total));
      },
      search.order, search.family_share);
  say_compiling();
  counts = stats.first_round;
  std::size_t planned = 0;
  for (const auto& plan : built) planned += plan.size();
  progress.line(fmt::format("{}compiled {} unique kernels for {}: {} from cache, {} failed, {} rejected "
                            "(spills or ptxas warnings)",
                            label, counts.unique, limits.nvrtc_arch(), counts.from_cache, counts.failed,
                            counts.rejected));
  if (stats.refilled > 0 || counts.failed + counts.rejected > 0)
    progress.line(fmt::format("{}{} slots of rejected variants went to the next candidates ({} more kernels); "
                              "{} candidates in all",
                              label, stats.refilled, stats.extra_compiles, planned));
  return built;
}

namespace {

// Plans and compiles batch `batch` of `plan` for session `s` into its slots of `built`, seeded (where
// the search takes seeds) by the winners `seeds_db` holds for shapes outside batch `tuning` (the
// one the GPU tunes meanwhile, if any); the candidates planned (race rounds included).
std::size_t compile_batch(const TuneOptions& options, TuneSession& s, const TuningDb* seeds_db,
                          const BatchPlan& plan, std::size_t batch, std::optional<std::size_t> tuning,
                          std::vector<std::vector<BuiltCandidate>>& built, Progress& progress, bool foreground) {
  const std::vector<Problem> problems = batch_problems(plan, batch);
  const std::string label =
      plan.ends.size() == 1
          ? ""
          : fmt::format("batch {}/{} (shapes {}-{}{}): ", batch + 1, plan.ends.size(), plan.begin(batch) + 1,
                        plan.ends[batch], foreground ? "" : ", compiled while the GPU tunes the batch before");
  const std::vector<Problem> left_out = tuning ? batch_problems(plan, *tuning) : std::vector<Problem>{};
  BuildCounts counts;
  const std::size_t seeds = seeds_db ? options.search().seeds : 0;
  auto compiled = compile_stage(options, problems, s.calibrated.families, s.limits, *s.compiler, counts,
                                seeds > 0 ? seeds_from_db(*seeds_db, s.device, problems, seeds, left_out)
                                          : std::vector<std::vector<KernelConfig>>{},
                                progress, label, foreground);
  std::size_t planned = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    planned += compiled[i].size() + std::min(compiled[i].size(), options.search().screened);
    built[plan.begin(batch) + i] = std::move(compiled[i]);
  }
  return planned;
}

// Batch `batch` for every session (identical GPUs find the kernels in the cache); the candidates
// planned for the first. Seeds come from `seeds_db`, or where it is null from each session's own
// connection.
std::size_t compile_for_sessions(const TuneOptions& options, const std::vector<std::unique_ptr<TuneSession>>& sessions,
                                 const TuningDb* seeds_db, const BatchPlan& plan, std::size_t batch,
                                 std::optional<std::size_t> tuning,
                                 std::vector<std::vector<std::vector<BuiltCandidate>>>& built, Progress& progress,
                                 bool foreground) {
  std::size_t planned = 0;
  for (std::size_t d = 0; d < sessions.size(); ++d) {
    TuneSession& s = *sessions[d];
    const std::size_t n = compile_batch(options, s, seeds_db ? seeds_db : s.db.get(), plan, batch, tuning, built[d],
                                        progress, foreground);
    if (d == 0) planned = n;
  }
  return planned;
}

}  // namespace

std::size_t compile_waited(const TuneOptions& options, const std::vector<std::unique_ptr<TuneSession>>& sessions,
                           const BatchPlan& plan, std::size_t batch,
                           std::vector<std::vector<std::vector<BuiltCandidate>>>& built, Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t planned =
      compile_for_sessions(options, sessions, nullptr, plan, batch, std::nullopt, built, progress, true);
  sessions.front()->stages->add(RunStage::Compiling, seconds_since(start));
  return planned;
}

void BackgroundBatch::start(const TuneOptions& options, const std::vector<std::unique_ptr<TuneSession>>& sessions,
                            const BatchPlan& plan, std::size_t batch, std::size_t tuning,
                            std::vector<std::vector<std::vector<BuiltCandidate>>>& built, Progress& progress) {
  if (plan.seeded && !seeds_db_) seeds_db_ = TuningDb::open(options.db_path, DbMode::ReadOnly);
  // Unseeded, no batch reads the database (compile_batch asks for seeds only where the search takes
  // them); seeded, through this connection, used by one batch at a time.
  const TuningDb* seeds_db = seeds_db_.get();
  result_ = std::async(std::launch::async, [&options, &sessions, seeds_db, &plan, batch, tuning, &built, &progress] {
    lower_this_thread_priority();
    return compile_for_sessions(options, sessions, seeds_db, plan, batch, tuning, built, progress, false);
  });
}

std::size_t BackgroundBatch::wait(StageTimes& stages) {
  const auto start = std::chrono::steady_clock::now();
  std::future<std::size_t> result = std::move(result_);
  result.wait();
  stages.add(RunStage::Compiling, seconds_since(start));
  return result.get();
}

}  // namespace cl2
