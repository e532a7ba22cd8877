#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/errors.hpp"
#include "runner/protocol.hpp"
#include "tune/tune_session.hpp"

namespace cl2 {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNotMeasured;
}

KernelRecord kernel_record(const BuiltCandidate& b) {
  KernelRecord k;
  k.family = b.candidate.family->name;
  k.config_json = b.candidate.config.to_json();
  k.source_hash = b.source.hash;
  k.arch = b.arch;
  k.compiled = b.compiled.ok;
  k.registers = b.compiled.report.registers;
  k.stack_bytes = b.compiled.report.stack_bytes;
  k.spill_bytes = b.compiled.report.spill_store_bytes + b.compiled.report.spill_load_bytes;
  k.smem_static_bytes = b.compiled.report.smem_static_bytes;
  if (!b.rejection().empty()) k.compile_log = b.compiled.log;
  return k;
}

json kernel_request(const char* op, const BuiltCandidate& b, const StopRule& rule) {
  return {{"op", op},
          {"cubin", b.compiled.cubin_path},
          {"launch", to_json(b.candidate.launch)},
          {"config", json::parse(b.candidate.config.to_json())},
          {"stop", to_json(rule)}};
}

// Makes sure the worker holds `problem` and has measured its baselines (a fresh worker after a
// crash needs both again). Stores the baselines. Throws std::runtime_error when it cannot.
void prepare_worker(TuneSession& s, const Problem& problem) {
  if (s.worker_problem && *s.worker_problem == problem && s.worker->running()) return;
  s.worker_problem.reset();
  WorkerReply reply = ask_worker(s, {{"op", "problem"}, {"problem", to_json(problem)}}, 900);
  if (!reply.answered || !reply.body.value("ok", false)) {
    const std::string why = reply.answered ? reply.body.value("error", "") : reply.failure;
    if (reply.answered && reply.body.value("user_error", false)) throw UserError(why);
    throw std::runtime_error(fmt::format("shape {}: worker could not set up the problem: {}",
                                         problem.text(), why));
  }
  reply = ask_worker(s, {{"op", "baselines"}, {"max_algos", 64}, {"screen", to_json(screening_stop_rule())},
                         {"final", to_json(final_stop_rule())}}, 900);
  if (!reply.answered || !reply.body.value("ok", false))
    throw std::runtime_error(fmt::format("shape {}: baselines failed: {}", problem.text(),
                                         reply.answered ? reply.body.value("error", "") : reply.failure));
  s.db->transaction([&] {
    for (const auto& b : reply.body.at("baselines")) {
      BaselineRecord record;
      record.device_id = s.device_id;
      record.run_id = s.run_id;
      record.problem = problem;
      record.provider = parse_provider(b.at("provider").get<std::string>());
      const TimingStats stats = timing_stats_from_json(b.at("stats"));
      record.time_us = stats.median_us;
      record.spread_pct = stats.spread_pct;
      record.samples = stats.samples;
      record.max_diff = number(b, "max_diff");
      record.detail = b.value("detail", "");
      s.db->upsert_baseline(record);
    }
  });
  s.worker_problem = problem;
}

TrialRecord run_trial(TuneSession& s, const Problem& problem, const BuiltCandidate& b,
                      std::int64_t kernel_id) {
  TrialRecord t;
  t.run_id = s.run_id;
  t.device_id = s.device_id;
  t.kernel_id = kernel_id;
  t.problem = problem;
  if (!b.compiled.ok) {
    t.status = TrialStatus::CompileFailed;
    t.reason = "NVRTC failed; the log is stored with the kernel";
    return t;
  }
  if (const std::string why = b.rejection(); !why.empty()) {
    t.status = TrialStatus::Rejected;
    t.reason = why;
    return t;
  }
  prepare_worker(s, problem);
  const WorkerReply reply =
      ask_worker(s, kernel_request("trial", b, screening_stop_rule()), s.options.watchdog_seconds);
  if (!reply.answered || reply.worker_lost) {
    s.worker_problem.reset();
    t.status = reply.timed_out ? TrialStatus::Timeout : TrialStatus::Fault;
    t.reason = reply.answered ? reply.body.value("error", reply.failure) : reply.failure;
    return t;
  }
  const json& r = reply.body;
  if (!r.value("ok", false)) {
    t.status = TrialStatus::LaunchFailed;
    t.reason = r.value("error", "worker error");
    return t;
  }
  t.status = parse_trial_status(r.at("status").get<std::string>());
  t.reason = r.value("reason", "");
  t.max_diff = number(r, "max_diff");
  t.tolerance = number(r, "tolerance");
  if (t.status == TrialStatus::Ok) {
    const TimingStats stats = timing_stats_from_json(r.at("stats"));
    t.time_us = stats.median_us;
    t.spread_pct = stats.spread_pct;
    t.samples = stats.samples;
    t.reference_us = timing_stats_from_json(r.at("reference_stats")).median_us;
  }
  return t;
}

// The verified trial with the best time relative to the library call it was timed against (a
// ratio taken side by side holds across runs and clock drift better than an absolute time).
const TrialRecord* best_trial(const std::vector<TrialRecord>& trials) {
  const TrialRecord* best = nullptr;
  auto score = [](const TrialRecord& t) {
    return std::isfinite(t.reference_us) && t.reference_us > 0 ? t.time_us / t.reference_us : t.time_us;
  };
  for (const auto& t : trials)
    if (t.status == TrialStatus::Ok && std::isfinite(t.time_us) && (!best || score(t) < score(*best)))
      best = &t;
  return best;
}

}  // namespace

WorkerReply ask_worker(TuneSession& s, const json& request, double timeout_seconds) {
  return s.worker->request(request, timeout_seconds);
}

ShapeOutcome tune_problem(TuneSession& s, const Problem& problem,
                          const std::vector<BuiltCandidate>& candidates, double shape_budget_seconds) {
  ShapeOutcome outcome;
  const auto start = Clock::now();
  std::vector<std::int64_t> kernel_ids;
  std::vector<std::size_t> pending;
  s.db->transaction([&] {
    for (const auto& b : candidates) kernel_ids.push_back(s.db->upsert_kernel(kernel_record(b)));
  });
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (s.db->find_trial(s.device_id, kernel_ids[i], problem)) ++outcome.reused;
    else pending.push_back(i);
  }
  const auto existing = s.db->winner(s.device_id, problem);
  if (pending.empty() && existing && !s.options.retune) {
    outcome.skipped = outcome.has_winner = true;
    outcome.winner_us = existing->time_us;
    outcome.speedup_vs_cublas_max = existing->speedup_vs_cublas_max();
    outcome.speedup_vs_cublaslt_autotune = existing->speedup_vs_cublaslt_autotune();
    return outcome;
  }
  s.progress->add_units(-std::ptrdiff_t(outcome.reused));
  std::size_t verified = 0;
  double best_us = 0, best_ratio = 0;  // best verified candidate of this run, for the status line
  for (std::size_t n = 0; n < pending.size(); ++n) {
    const std::size_t i = pending[n];
    const double used = std::chrono::duration<double>(Clock::now() - start).count();
    if (shape_budget_seconds > 0 && used > shape_budget_seconds && verified >= 2) {
      s.progress->line(fmt::format("  budget for {} spent after {} of {} candidates", problem.text(), n,
                                   pending.size()));
      s.progress->add_units(-std::ptrdiff_t(pending.size() - n));
      break;
    }
    TrialRecord trial = run_trial(s, problem, candidates[i], kernel_ids[i]);
    trial.id = s.db->insert_trial(trial);
    s.progress->unit_done();
    if (trial.status == TrialStatus::Ok) {
      ++verified;
      ++outcome.timed;
      if (best_us == 0 || trial.time_us < best_us) {
        best_us = trial.time_us;
        best_ratio = trial.reference_us / trial.time_us;
      }
    } else {
      ++outcome.failed;
    }
    if (s.options.verbose || (trial.status != TrialStatus::Ok && trial.status != TrialStatus::Rejected))
      s.progress->line(fmt::format("  {} {}: {}", to_string(trial.status), candidates[i].candidate.config.label(),
                                   trial.status == TrialStatus::Ok
                                       ? fmt::format("{:.2f} us ({:.3f}x of cuBLASLt)", trial.time_us,
                                                     trial.reference_us / trial.time_us)
                                       : trial.reason));
    s.progress->status(fmt::format("  {}: candidate {}/{}, {} verified+timed, {} failed, best {} {}",
                                   problem.text(), n + 1, pending.size(), outcome.timed, outcome.failed,
                                   best_us > 0 ? fmt::format("{:.2f} us ({:.3f}x of cuBLASLt)", best_us, best_ratio)
                                               : std::string("-"),
                                   s.progress->eta()));
  }
  // Only this run's candidates compete: their binaries are at hand for the final round.
  auto trials = s.db->trials(s.device_id, problem);
  std::erase_if(trials, [&](const TrialRecord& t) {
    return std::find(kernel_ids.begin(), kernel_ids.end(), t.kernel_id) == kernel_ids.end();
  });
  const TrialRecord* best = best_trial(trials);
  if (!best) {
    outcome.failure = "no candidate passed verification";
    return outcome;
  }
  const auto kernel = s.db->kernel(best->kernel_id);
  const BuiltCandidate* winner = &candidates.front();
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (kernel_ids[i] == best->kernel_id) winner = &candidates[i];
  prepare_worker(s, problem);
  const WorkerReply reply = ask_worker(s, kernel_request("final", *winner, final_stop_rule()),
                                       s.options.watchdog_seconds * 2);
  if (!reply.answered || !reply.body.value("ok", false)) {
    s.worker_problem.reset();
    outcome.failure = "final timing failed: " + (reply.answered ? reply.body.value("error", "") : reply.failure);
    return outcome;
  }
  const json& times = reply.body.at("times");
  auto median = [&](const char* key) {
    return times.contains(key) ? timing_stats_from_json(times[key]).median_us : kNotMeasured;
  };
  WinnerRecord w;
  w.device_id = s.device_id;
  w.run_id = s.run_id;
  w.problem = problem;
  w.kernel_id = best->kernel_id;
  w.trial_id = best->id;
  const TimingStats ours = timing_stats_from_json(times.at("ours"));
  w.time_us = ours.median_us;
  w.spread_pct = ours.spread_pct;
  w.max_diff = number(reply.body, "max_diff");
  w.cublas_nn_us = median("cublas_nn");
  w.cublas_tn_us = median("cublas_tn");
  w.cublaslt_heuristic_us = median("cublaslt_heuristic");
  w.cublaslt_autotune_us = median("cublaslt_autotune");
  w.candidates_timed = int(std::count_if(trials.begin(), trials.end(),
                                         [](const TrialRecord& t) { return t.status == TrialStatus::Ok; }));
  s.db->put_winner(w);
  outcome.has_winner = true;
  outcome.winner_us = w.time_us;
  outcome.speedup_vs_cublas_max = w.speedup_vs_cublas_max();
  outcome.speedup_vs_cublaslt_autotune = w.speedup_vs_cublaslt_autotune();
  outcome.winner_label = kernel ? KernelConfig::from_json(kernel->config_json).label() : "";
  return outcome;
}

}  // namespace cl2
