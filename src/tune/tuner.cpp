#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "core/errors.hpp"
#include "gpu/device_query.hpp"
#include "report/speedup_stats.hpp"
#include "report/text_table.hpp"
#include "runner/protocol.hpp"
#include "tune/batches.hpp"
#include "tune/clean_plan.hpp"
#include "tune/stored_calibration.hpp"
#include "tune/tune_session.hpp"

namespace cl2 {

namespace {

using nlohmann::json;

std::vector<FamilySpec> load_extra_families(const TuneOptions& options) {
  std::vector<FamilySpec> extra;
  for (const auto& path : options.space_files) extra.push_back(load_family_file(path));
  return extra;
}

// The --family selection with the --pin values applied, less the families that cannot take them
// (--pin BN=8 without --family tunes sm90, which lists BN=8, and leaves sm80 out); pinned copies
// live in `pinned`.
std::vector<const FamilySpec*> tuned_families(const TuneOptions& options, const std::vector<FamilySpec>& extra,
                                              std::vector<FamilySpec>& pinned) {
  auto selected = select_families(options.families, extra);
  if (options.pins.empty()) return selected;
  for (const auto& [name, value] : options.pins)
    if (std::none_of(selected.begin(), selected.end(), [&](const FamilySpec* f) { return f->params.count(name); }))
      throw UserError(fmt::format("--pin {}={}: no selected family has a parameter {}; the space files "
                                  "(configs/spaces/*.json) list each family's parameters",
                                  name, value, name));
  pinned.clear();
  pinned.reserve(selected.size());
  std::vector<std::string> mismatches;
  for (const FamilySpec* family : selected) {
    std::string mismatch;
    if (auto family_pinned = pin_family(*family, options.pins, &mismatch)) pinned.push_back(std::move(*family_pinned));
    else mismatches.push_back(std::move(mismatch));
  }
  if (pinned.empty())
    throw UserError(fmt::format("--pin: no selected family takes these values ({}); pick listed values",
                                fmt::join(mismatches, "; ")));
  std::vector<const FamilySpec*> out;
  for (const auto& family : pinned) out.push_back(&family);
  return out;
}

// The shapes file, or this shard's part of it (said on stderr).
std::vector<Problem> shapes_to_tune(const TuneOptions& options, const std::vector<const FamilySpec*>& families) {
  const auto all = load_shape_file(options.shapes_path, options.defaults);
  if (options.shard.count == 1) return all;
  const SearchPlan search = options.search();
  auto selected = select_shard(all, families, search.planned, search.family_share, options.shard);
  std::fprintf(stderr, "shard %d/%d: %zu of the %zu shapes of %s\n", options.shard.index, options.shard.count,
               selected.size(), all.size(), options.shapes_path.c_str());
  return selected;
}

void check_memory(const std::vector<Problem>& problems, const DeviceInfo& device) {
  constexpr std::int64_t kReserve = std::int64_t(1) << 30;
  for (const auto& p : problems) {
    const std::int64_t needed = problem_device_bytes(p, device.l2_bytes);
    if (needed + kReserve > device.free_mem_bytes)
      throw UserError(fmt::format(
          "shape {}: needs {:.1f} GiB of GPU memory, {} has {:.1f} GiB free; remove or split this "
          "shape in the shapes file",
          p.text(), double(needed) / double(1 << 30), device.name,
          double(device.free_mem_bytes) / double(1 << 30)));
  }
}

}  // namespace

int run_compile_only(const TuneOptions& options) {
  const auto extra = load_extra_families(options);
  std::vector<FamilySpec> pinned;
  const auto families = tuned_families(options, extra, pinned);
  const auto problems = shapes_to_tune(options, families);
  DeviceLimits limits;
  if (!options.arch.empty()) {
    limits = limits_for_arch(options.arch);
  } else if (gpu_unavailable_reason(options.devices.front()).empty()) {
    limits = device_limits(query_device(options.devices.front()));
  } else {
    limits = limits_for_arch("sm_90a");
    std::fprintf(stderr, "no GPU here: compiling for sm_90a (H100/H200); --arch picks another\n");
  }
  KernelCompiler compiler(options.cache_dir);
  BuildCounts counts;
  Progress progress(0);
  const auto built = compile_stage(options, problems, families, limits, compiler, counts, {}, progress, "", true);
  if (options.verbose)
    for (std::size_t i = 0; i < problems.size(); ++i) {
      std::fprintf(stderr, "%s: %zu candidates\n", problems[i].text().c_str(), built[i].size());
      for (const auto& b : built[i])
        std::fprintf(stderr, "  %8.1f us  %s%s\n", b.candidate.cost_us, b.candidate.config.label().c_str(),
                     b.rejection().empty() ? "" : ("  (rejected: " + b.rejection() + ")").c_str());
    }
  if (counts.failed > 0) {
    std::fprintf(stderr, "%zu kernels failed to compile; logs are in %s/*.json\n", counts.failed,
                 options.cache_dir.c_str());
    return 1;
  }
  return 0;
}

namespace {

// A worker on `device`, introduced: its DeviceInfo and the limits the search plans with.
std::unique_ptr<TuneSession> start_session(const TuneOptions& options, int device,
                                           const std::shared_ptr<StageTimes>& stages) {
  if (!options.fake_gpu) {
    if (const std::string reason = gpu_unavailable_reason(device); !reason.empty()) throw UserError(reason);
  }
  auto s = std::make_unique<TuneSession>(options);
  s->stages = stages;
  s->compiler = std::make_unique<KernelCompiler>(options.cache_dir);
  s->worker = std::make_unique<WorkerClient>(WorkerOptions{device, options.cache_dir, options.fake_gpu, options.trace_kernels});
  const WorkerReply hello = ask_worker(*s, HelloRequest{}, 120);
  if (!hello.succeeded()) {
    if (hello.user_error()) throw UserError(hello.error());
    throw std::runtime_error(fmt::format("the GPU worker for device {} did not start: {}", device, hello.error()));
  }
  s->device = hello_reply_from_json(hello.body).device;
  s->limits = device_limits(s->device);
  return s;
}

// What the tuning threads share: the next shape to take, the outcomes, the first failure.
struct SharedRun {
  SharedRun(const std::vector<Problem>& run_problems, std::chrono::steady_clock::time_point run_start)
      : problems(run_problems), start(run_start) {}

  const std::vector<Problem>& problems;
  std::atomic<std::size_t> next{0};
  std::size_t end = 0;  // shapes from `next` up to here are planned and compiled (the current batch)
  std::mutex mutex;
  std::vector<double> vs_lt, vs_cublas;
  int missing = 0;
  std::exception_ptr failure;
  std::chrono::steady_clock::time_point start;  // of the whole run, workers' start and compiling included
};

// Takes shapes from `run` until none is left (or another device failed) and tunes them on `s`.
void tune_shapes(TuneSession& s, const std::vector<std::vector<BuiltCandidate>>& built, SharedRun& run,
                 const std::string& tag, std::size_t devices) {
  const auto& problems = run.problems;
  for (std::size_t i; (i = run.next.fetch_add(1)) < run.end;) {
    {
      std::lock_guard lock(run.mutex);
      if (run.failure) return;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
    // The time left is shared by the shapes left, several at a time where several GPUs tune.
    const double share = s.options.budget_seconds > 0
                             ? std::max(0.0, s.options.budget_seconds - elapsed) * double(devices) /
                                   double(problems.size() - i)
                             : 0.0;
    s.progress->line(fmt::format("{}[{}/{}] {}: {} candidates {}", tag, i + 1, problems.size(), problems[i].text(),
                                 built[i].size(), s.progress->eta()));
    const ShapeOutcome outcome = tune_problem(s, problems[i], built[i], share);
    std::lock_guard lock(run.mutex);
    if (outcome.has_winner) {
      run.vs_lt.push_back(outcome.speedup_vs_cublaslt_autotune);
      run.vs_cublas.push_back(outcome.speedup_vs_cublas_max);
      s.progress->line(fmt::format(
          "{}  {} {} {:.2f} us: {:.3f}x vs cuBLASLt-autotune, {:.3f}x vs cuBLAS-max ({} timed, {} failed, "
          "{} from earlier runs){}{}",
          tag, problems[i].text(), outcome.skipped ? "already tuned:" : "winner", outcome.winner_us,
          outcome.speedup_vs_cublaslt_autotune, outcome.speedup_vs_cublas_max, outcome.timed, outcome.failed,
          outcome.reused, outcome.winner_label.empty() ? "" : "\n    ", outcome.winner_label));
    } else {
      ++run.missing;
      s.progress->line(fmt::format("{}  {} no winner: {}", tag, problems[i].text(), outcome.failure));
    }
  }
}

// Tunes the shapes of `run` up to run.end, with one thread per GPU where there are several.
void tune_batch(const std::vector<std::unique_ptr<TuneSession>>& sessions,
                const std::vector<std::vector<std::vector<BuiltCandidate>>>& built, SharedRun& run,
                const std::vector<int>& devices) {
  if (sessions.size() == 1) {
    try {
      tune_shapes(*sessions.front(), built.front(), run, "", 1);
    } catch (...) {
      run.failure = std::current_exception();
    }
    return;
  }
  std::vector<std::thread> threads;
  for (std::size_t d = 0; d < sessions.size(); ++d)
    threads.emplace_back([&, d] {
      try {
        tune_shapes(*sessions[d], built[d], run, fmt::format("gpu{} ", devices[d]), sessions.size());
      } catch (...) {
        std::lock_guard lock(run.mutex);
        if (!run.failure) run.failure = std::current_exception();
      }
    });
  for (auto& thread : threads) thread.join();
}

}  // namespace

int run_tune(const TuneOptions& options) {
  if (options.compile_only) return run_compile_only(options);
  const auto run_start = std::chrono::steady_clock::now();
  const auto extra = load_extra_families(options);
  std::vector<FamilySpec> pinned;
  const auto families = tuned_families(options, extra, pinned);
  const auto listed = shapes_to_tune(options, families);
  if (listed.empty()) return 0;
  std::vector<std::unique_ptr<TuneSession>> sessions;
  const auto stages = std::make_shared<StageTimes>();
  for (const int device : options.devices) sessions.push_back(start_session(options, device, stages));
  // Every input is checked before the database is touched: a bad shape leaves it as it was.
  for (const auto& s : sessions) check_memory(listed, s->device);
  std::vector<std::vector<std::vector<BuiltCandidate>>> built(sessions.size(),
                                                              std::vector<std::vector<BuiltCandidate>>(listed.size()));
  Progress first_progress(0);  // the run's own starts with the first batch's count
  std::size_t units = 0;
  BatchPlan plan;
  // A plan that fails (e.g. too many variants without a cap) leaves no database it created.
  const bool db_existed = std::filesystem::exists(options.db_path);
  try {
    for (auto& s : sessions) {
      s->db = TuningDb::open(options.db_path, DbMode::ReadWrite);
      s->calibrated = with_stored_calibrations(*s->db, s->device.name, families);
      for (const auto& note : s->calibrated.notes) std::fprintf(stderr, "%s\n", note.c_str());
    }
    const TuneSession& first = *sessions.front();
    plan = plan_batches(options.retune ? listed : untuned_first(listed, *first.db, first.device),
                        options.search().seeds);
    // The shapes of later batches must plan too: a shape no variant fits stops the run here (the
    // first batch is planned just below).
    if (plan.ends.size() > 1)
      for (auto& s : sessions)
        check_plannable({plan.problems.begin() + std::ptrdiff_t(plan.ends.front()), plan.problems.end()},
                        s->calibrated.families, s->limits);
    units = compile_waited(options, sessions, plan, 0, built, first_progress);
    for (auto& s : sessions) s->device_id = s->db->upsert_device(s->device);
  } catch (const UserError&) {
    if (!db_existed) {
      for (auto& s : sessions) s->db.reset();
      std::error_code ignored;  // e.g. a path whose folder could not be made: nothing to remove
      for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(options.db_path + suffix, ignored);
    }
    throw;
  }
  const std::vector<Problem>& problems = plan.problems;
  const std::size_t batches = plan.ends.size();
  const std::int64_t run_id = sessions.front()->db->begin_run(options.command_line, options.shapes_path);
  // Later batches are estimated at the first's candidates per shape until they are planned.
  const std::size_t per_shape = (units + plan.ends.front() - 1) / plan.ends.front();
  auto progress = std::make_shared<Progress>(units + per_shape * (problems.size() - plan.ends.front()));
  if (options.budget_seconds > 0) progress->set_budget(options.budget_seconds);
  std::vector<std::string> names;
  for (std::size_t d = 0; d < sessions.size(); ++d) {
    sessions[d]->run_id = run_id;
    sessions[d]->progress = progress;
    names.push_back(fmt::format("{} (device {}, sm_{}, {} SMs)", sessions[d]->device.name, options.devices[d],
                                sessions[d]->device.cc(), sessions[d]->device.num_sms));
  }
  progress->line(fmt::format("tuning {} shapes on {}; database {}", problems.size(), fmt::join(names, ", "),
                             options.db_path));
  SharedRun run(problems, run_start);
  const auto estimated_units = [&](std::size_t b) { return per_shape * (plan.ends[b] - plan.begin(b)); };
  BackgroundBatch next;
  for (std::size_t b = 0; b < batches && !run.failure; ++b) {
    try {
      // Batch b was compiled beside batch b-1's tuning, or (batch 1 of a seeded run, which waits
      // for batch 0's winners) is compiled now.
      std::size_t planned = 0;
      if (next.running()) planned = next.wait(*stages);
      else if (b > 0) planned = compile_waited(options, sessions, plan, b, built, *progress);
      if (b > 0) progress->add_units(std::ptrdiff_t(planned) - std::ptrdiff_t(estimated_units(b)));
      if (b + 1 < batches && !(plan.seeded && b == 0))
        next.start(options, sessions, plan, b + 1, b, built, *progress);
    } catch (...) {
      run.failure = std::current_exception();
      break;
    }
    // Each thread's last look past the batch's end took an index: the next batch starts afresh.
    run.next = plan.begin(b);
    run.end = plan.ends[b];
    tune_batch(sessions, built, run, options.devices);
  }
  // A run that failed leaves no compile behind it (its exception, if any, is the lesser news).
  if (next.running()) {
    try {
      next.wait(*stages);
    } catch (...) {
    }
  }
  auto& db = *sessions.front()->db;
  db.set_run_stages(run_id, stages->recorded());
  if (run.failure) {
    db.finish_run(run_id, "failed");
    std::rethrow_exception(run.failure);
  }
  db.finish_run(run_id, run.missing == 0 ? "completed" : "completed_with_failures");
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
  const SpeedupStats lt = speedup_stats(run.vs_lt), cublas = speedup_stats(run.vs_cublas);
  int restarts = 0;
  for (const auto& s : sessions) restarts += s->worker->restarts();
  progress->line(fmt::format(
      "done in {}: {} of {} shapes have a verified winner; geomean speedup {:.3f}x vs "
      "cuBLASLt-autotune, {:.3f}x vs cuBLAS-max (worker restarts: {})",
      format_duration(total), problems.size() - std::size_t(run.missing), problems.size(), lt.geomean,
      cublas.geomean, restarts));
  progress->line(stages->summary(total, sessions.size()));
  return run.missing == 0 ? 0 : 1;
}

}  // namespace cl2
