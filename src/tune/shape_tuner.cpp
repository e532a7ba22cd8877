#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "profile/counters_request.hpp"
#include "runner/protocol.hpp"
#include "tune/tune_session.hpp"

namespace cl2 {

namespace {

using Clock = std::chrono::steady_clock;

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

// Tells the user once per session why calls are not traced (CUPTI missing or refused): tuning goes
// on, without the cross-check of event times.
void tell_if_untraced(TuneSession& s, const std::optional<CallTrace>& trace) {
  if (!trace || trace->traced() || s.trace_absence_told) return;
  s.trace_absence_told = true;
  s.progress->line("  kernel tracing off, event times are not cross-checked: " + trace->absent);
}

// `record` timed as `stats` say, its trace judged against that time.
BaselineRecord with_times(BaselineRecord record, const TimingStats& stats) {
  record.time_us = stats.median_us;
  record.spread_pct = stats.spread_pct;
  record.samples = stats.samples;
  record.trace_flag = record.trace ? timing_flag(stats.median_us, *record.trace) : "";
  return record;
}

void store_baselines(TuneSession& s, const std::vector<BaselineRecord>& records) {
  s.db->transaction([&] {
    for (const auto& record : records) s.db->upsert_baseline(record);
  });
}

// Makes sure the worker holds `problem` and has chosen and timed its baselines (a fresh worker
// after a crash needs both again). Stores the baselines. Throws std::runtime_error when it cannot.
// They are timed briefly, as reference for the screening: the final round times them carefully
// beside the finalists, and that measurement replaces this one (store_final_baselines).
void prepare_worker(TuneSession& s, const Problem& problem) {
  if (s.worker_problem && *s.worker_problem == problem && s.worker->running()) return;
  s.worker_problem.reset();
  WorkerReply reply = ask_worker(s, ProblemRequest{problem}, 900);
  if (!reply.succeeded()) {
    if (reply.user_error()) throw UserError(reply.error());
    throw std::runtime_error(fmt::format("shape {}: worker could not set up the problem: {}",
                                         problem.text(), reply.error()));
  }
  reply = ask_worker(s, BaselinesRequest{kLtAutotuneAlgorithms, screening_stop_rule(), screening_stop_rule()}, 900);
  if (!reply.succeeded())
    throw std::runtime_error(fmt::format("shape {}: baselines failed: {}", problem.text(), reply.error()));
  s.baselines.clear();
  for (const auto& b : baselines_reply_from_json(reply.body).baselines) {
    BaselineRecord record;
    record.device_id = s.device_id;
    record.run_id = s.run_id;
    record.problem = problem;
    record.provider = b.provider;
    record.max_diff = b.max_diff;
    record.detail = b.detail;
    record.lt_algo = b.lt_algo;
    record.trace = b.trace;
    s.baselines.push_back(with_times(std::move(record), b.stats));
    tell_if_untraced(s, b.trace);
    if (!s.baselines.back().trace_flag.empty())
      s.progress->line(fmt::format("  {} on {}: {}", to_string(b.provider), problem.text(), s.baselines.back().trace_flag));
  }
  store_baselines(s, s.baselines);
  s.worker_problem = problem;
}

// The final round's library times, the careful measurement, replace the baselines' brief one.
void store_final_baselines(TuneSession& s, const FinalReply& final_times) {
  for (auto& record : s.baselines)
    if (const auto it = final_times.times.find(record.provider); it != final_times.times.end())
      record = with_times(std::move(record), it->second);
  store_baselines(s, s.baselines);
}

// The trials of candidates[at[0]], candidates[at[1]], ...: those that did not compile clean are
// recorded without the GPU, the others verified and timed in one request, side by side beside one
// library call. Where the worker is lost or the request fails, each of several is tried again
// alone, so that a crash or a failed launch is recorded against the candidate that caused it.
std::vector<TrialRecord> run_trials(TuneSession& s, const Problem& problem, const std::vector<BuiltCandidate>& candidates,
                                    const std::vector<std::int64_t>& kernel_ids, const std::vector<std::size_t>& at,
                                    const StopRule& rule) {
  std::vector<TrialRecord> trials(at.size());
  std::vector<std::size_t> asked;  // places in `at` of the candidates the worker gets
  TrialRequest request;
  // A race's brief round checks briefly too (protocol.hpp): its leaders are checked in full when
  // screened, and every finalist in the final round.
  request.brief_check = rule == race_stop_rule();
  for (std::size_t n = 0; n < at.size(); ++n) {
    const BuiltCandidate& b = candidates[at[n]];
    TrialRecord& t = trials[n];
    t.run_id = s.run_id;
    t.device_id = s.device_id;
    t.kernel_id = kernel_ids[at[n]];
    t.problem = problem;
    if (!b.compiled.ok) {
      t.status = TrialStatus::CompileFailed;
      t.reason = "NVRTC failed; the log is stored with the kernel";
    } else if (const std::string why = b.rejection(); !why.empty()) {
      t.status = TrialStatus::Rejected;
      t.reason = why;
    } else {
      asked.push_back(n);
      request.kernels.push_back(kernel_run(b, rule));
    }
  }
  if (asked.empty()) return trials;
  prepare_worker(s, problem);
  const WorkerReply reply =
      ask_worker(s, request, request_timeout_seconds(rule, asked.size(), s.options.watchdog_seconds));
  const bool lost = !reply.answered || reply.worker_lost;
  if (lost) s.worker_problem.reset();
  if (asked.size() > 1 && !reply.succeeded()) {
    for (const std::size_t n : asked) trials[n] = run_trials(s, problem, candidates, kernel_ids, {at[n]}, rule).front();
    return trials;
  }
  TrialRecord& alone = trials[asked.front()];
  if (lost) {
    alone.status = reply.timed_out ? TrialStatus::Timeout : TrialStatus::Fault;
    alone.reason = reply.error();
    return trials;
  }
  if (!reply.succeeded()) {
    alone.status = TrialStatus::LaunchFailed;
    alone.reason = reply.error();
    return trials;
  }
  const TrialsReply answers = trials_reply_from_json(reply.body);
  if (answers.trials.size() != asked.size())
    throw std::runtime_error(fmt::format("shape {}: the worker answered {} of {} trials", problem.text(),
                                         answers.trials.size(), asked.size()));
  for (std::size_t j = 0; j < asked.size(); ++j) {
    const TrialReply& r = answers.trials[j];
    TrialRecord& t = trials[asked[j]];
    t.status = r.status;
    t.reason = r.reason;
    t.max_diff = r.max_diff;
    t.tolerance = r.tolerance;
    if (t.status != TrialStatus::Ok) continue;
    t.time_us = r.stats.median_us;
    t.spread_pct = r.stats.spread_pct;
    t.samples = r.stats.samples;
    t.reference_us = r.reference_stats.median_us;
    t.trace = r.trace;
    tell_if_untraced(s, r.trace);
    // Its time stays recorded, but a time that missed some of its work can never win.
    if (const std::string flag = r.trace ? timing_flag(r.stats.median_us, *r.trace) : ""; !flag.empty()) {
      t.status = TrialStatus::VerifyFailed;
      t.reason = "timing does not cover its kernels: " + flag;
    }
  }
  return trials;
}

// A finalist that failed the final round's checks: its trial says so, so that it can never win,
// in this run or one that finds its trial stored.
// (Its max_diff and tolerance stay its trial's; the reason holds the failing check's.)
void record_failed_finalist(TuneSession& s, const TrialRecord& trial, const FinalistTiming& final_check,
                            const std::string& label) {
  TrialRecord failed = trial;
  failed.status = final_check.status;
  failed.reason = "in the final round: " + final_check.reason;
  s.db->update_trial_measurement(failed);
  s.progress->line(fmt::format("  {} {}: {}", to_string(failed.status), label, failed.reason));
}

// Positions first, first + 1, ... of `order`, at most `count` of them.
std::vector<std::size_t> batch_of(const std::vector<std::size_t>& order, std::size_t first, std::size_t count) {
  return {order.begin() + std::ptrdiff_t(first),
          order.begin() + std::ptrdiff_t(std::min(order.size(), first + count))};
}

// tune --counters: the winner's and the library call's counters, stored; where CUPTI cannot
// profile, stored as absent with the reason, which the user is told once.
void record_counters(TuneSession& s, const Problem& problem, const BuiltCandidate& winner, std::int64_t kernel_id) {
  const ProfileReply reply = request_counters(*s.worker, kernel_run(winner, screening_stop_rule()),
                                              recorded_library_algo(*s.db, s.device_id, problem),
                                              s.options.watchdog_seconds * 2);
  if (!s.worker->running()) s.worker_problem.reset();
  s.db->transaction([&] {
    for (const auto& record : counters_records(reply, s.device_id, s.run_id, problem, kernel_id))
      s.db->upsert_counters(record);
  });
  if (!reply.ours.measured() && !std::exchange(s.counters_absence_told, true))
    s.progress->line("  counters not measured, recorded as absent: " + reply.ours.absent);
}

// A trial's time relative to the library call it was timed against (a ratio taken side by side
// holds across runs and clock drift better than an absolute time).
double trial_score(const TrialRecord& t) {
  return std::isfinite(t.reference_us) && t.reference_us > 0 ? t.time_us / t.reference_us : t.time_us;
}

// The verified trials that go to the final round, best first: the best and, up to `count` in all,
// those within kFinalistMargin of it. A screening time is short, so the best of many close
// candidates is often one whose samples ran fast by chance; settling the close ones side by side
// under the final rule picks by the better measurement (measured on the H200: the winner's final
// ratio to cuBLASLt came out 0.8-1.2% below its screening ratio on average over grid-125).
constexpr double kFinalistMargin = 0.04;
std::vector<const TrialRecord*> finalist_trials(const std::vector<TrialRecord>& trials, std::size_t count) {
  std::vector<const TrialRecord*> verified;
  for (const auto& t : trials)
    if (t.status == TrialStatus::Ok && std::isfinite(t.time_us)) verified.push_back(&t);
  std::stable_sort(verified.begin(), verified.end(),
                   [](const TrialRecord* x, const TrialRecord* y) { return trial_score(*x) < trial_score(*y); });
  std::vector<const TrialRecord*> finalists;
  for (const TrialRecord* t : verified)
    if (finalists.empty() ||
        (finalists.size() < count && trial_score(*t) <= trial_score(*finalists.front()) * (1 + kFinalistMargin)))
      finalists.push_back(t);
  return finalists;
}

// The trials of `kernel_ids` (this run's candidates; their binaries are at hand) among the shape's.
std::vector<TrialRecord> trials_of(TuneSession& s, const Problem& problem, const std::vector<std::int64_t>& kernel_ids) {
  auto trials = s.db->trials(s.device_id, problem);
  std::erase_if(trials, [&](const TrialRecord& t) {
    return std::find(kernel_ids.begin(), kernel_ids.end(), t.kernel_id) == kernel_ids.end();
  });
  return trials;
}

// A race's second round (tune --strategy race): the `count` best of the candidates timed briefly
// are timed again under the screening rule, each keeping its one trial row with the better
// measurement, so that the finalists are picked by screening times as in every strategy.
void screen_race_leaders(TuneSession& s, const Problem& problem, const std::vector<BuiltCandidate>& candidates,
                         const std::vector<std::int64_t>& kernel_ids, std::size_t count, ShapeOutcome& outcome) {
  const auto trials = trials_of(s, problem, kernel_ids);
  std::vector<const TrialRecord*> leaders;
  for (const auto& t : trials)
    if (t.status == TrialStatus::Ok && std::isfinite(t.time_us)) leaders.push_back(&t);
  std::stable_sort(leaders.begin(), leaders.end(),
                   [](const TrialRecord* x, const TrialRecord* y) { return trial_score(*x) < trial_score(*y); });
  if (leaders.size() > count) leaders.resize(count);
  s.progress->add_units(std::ptrdiff_t(leaders.size()) - std::ptrdiff_t(count));
  std::vector<std::size_t> at;  // each leader's place among the candidates
  for (const TrialRecord* leader : leaders)
    at.push_back(std::size_t(std::find(kernel_ids.begin(), kernel_ids.end(), leader->kernel_id) - kernel_ids.begin()));
  const std::size_t side_by_side = std::max<std::size_t>(1, s.options.side_by_side);
  for (std::size_t first = 0; first < leaders.size(); first += side_by_side) {
    std::vector<TrialRecord> batch =
        run_trials(s, problem, candidates, kernel_ids, batch_of(at, first, side_by_side), screening_stop_rule());
    for (std::size_t k = 0; k < batch.size(); ++k) {
      TrialRecord& trial = batch[k];
      const std::size_t n = first + k;
      trial.id = leaders[n]->id;
      s.db->update_trial_measurement(trial);
      s.progress->unit_done();
      if (trial.status != TrialStatus::Ok) {
        --outcome.timed;
        ++outcome.failed;
        s.progress->line(fmt::format("  {} {}: {}", to_string(trial.status),
                                     candidates[at[n]].candidate.config.label(), trial.reason));
      }
      s.progress->status(fmt::format("  {}: screening the race's best, {}/{} {}", problem.text(), n + 1,
                                     leaders.size(), s.progress->eta()));
    }
  }
}

// The winner the final round settled, and the round itself (with the libraries' times).
struct SettledWinner {
  TrialRecord trial;  // a copy: the trials are read again after a round whose finalists all failed
  const BuiltCandidate* build = nullptr;
  FinalistTiming timing;
  FinalReply round;
};

// The final round over this run's candidates (their binaries are at hand): the finalists timed
// side by side with the library calls. A finalist that fails the round's checks is recorded so;
// where all of them fail, the next best go to a round of their own. nullopt, with the reason in
// `outcome`, where none is left or the worker fails.
std::optional<SettledWinner> settle_finalists(TuneSession& s, const Problem& problem,
                                              const std::vector<BuiltCandidate>& candidates,
                                              const std::vector<std::int64_t>& kernel_ids, ShapeOutcome& outcome) {
  for (;;) {
    const auto trials = trials_of(s, problem, kernel_ids);
    const std::vector<const TrialRecord*> finalists =
        finalist_trials(trials, std::max<std::size_t>(1, s.options.finalists));
    if (finalists.empty()) {
      outcome.failure = "no candidate passed verification";
      return std::nullopt;
    }
    std::vector<const BuiltCandidate*> finalist_builds;
    FinalRequest request;
    for (const TrialRecord* t : finalists) {
      const auto built = std::find(kernel_ids.begin(), kernel_ids.end(), t->kernel_id) - kernel_ids.begin();
      finalist_builds.push_back(&candidates[std::size_t(built)]);
      request.finalists.push_back(kernel_run(*finalist_builds.back(), final_round_stop_rule()));
    }
    prepare_worker(s, problem);
    // The finalists side by side, and the library calls counted as one more: a hang is found after
    // one watchdog period and a few seconds, not one period per finalist.
    const WorkerReply reply = ask_worker(
        s, request, request_timeout_seconds(final_round_stop_rule(), finalists.size() + 1, s.options.watchdog_seconds));
    if (!reply.succeeded()) {
      s.worker_problem.reset();
      outcome.failure = "final timing failed: " + reply.error();
      return std::nullopt;
    }
    const FinalReply round = final_reply_from_json(reply.body);
    if (round.finalists.size() != finalists.size()) {
      outcome.failure = fmt::format("final timing answered for {} of {} finalists", round.finalists.size(),
                                    finalists.size());
      return std::nullopt;
    }
    store_final_baselines(s, round);
    std::optional<std::size_t> chosen;  // the fastest finalist that passed the round's checks
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      const FinalistTiming& f = round.finalists[i];
      if (f.status != TrialStatus::Ok)
        record_failed_finalist(s, *finalists[i], f, finalist_builds[i]->candidate.config.label());
      else if (!chosen || f.stats.median_us < round.finalists[*chosen].stats.median_us)
        chosen = i;
    }
    if (chosen) return SettledWinner{*finalists[*chosen], finalist_builds[*chosen], round.finalists[*chosen], round};
  }
}

}  // namespace

WorkerReply ask_worker(TuneSession& s, const WorkerRequest& request, double timeout_seconds) {
  const auto start = Clock::now();
  WorkerReply reply = s.worker->request(request, timeout_seconds);
  if (s.stages)
    s.stages->add(stage_of(request), std::chrono::duration<double>(Clock::now() - start).count(), units_of(request));
  return reply;
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
  const std::size_t race_screened = std::min(candidates.size(), s.options.search().screened);
  if (pending.empty() && existing && !s.options.retune) {
    s.progress->add_units(-std::ptrdiff_t(race_screened));
    outcome.skipped = outcome.has_winner = true;
    outcome.winner_us = existing->time_us;
    outcome.speedup_vs_cublas_max = existing->speedup_vs_cublas_max();
    outcome.speedup_vs_cublaslt_autotune = existing->speedup_vs_cublaslt_autotune();
    return outcome;
  }
  s.progress->add_units(-std::ptrdiff_t(outcome.reused));
  std::size_t verified = 0;
  double best_us = 0, best_ratio = 0;  // best verified candidate of this run, for the status line
  const std::size_t side_by_side = std::max<std::size_t>(1, s.options.side_by_side);
  for (std::size_t first = 0; first < pending.size(); first += side_by_side) {
    const double used = std::chrono::duration<double>(Clock::now() - start).count();
    if (shape_budget_seconds > 0 && used > shape_budget_seconds && verified >= 2) {
      s.progress->line(fmt::format("  budget for {} spent after {} of {} candidates", problem.text(), first,
                                   pending.size()));
      s.progress->add_units(-std::ptrdiff_t(pending.size() - first));
      break;
    }
    std::vector<TrialRecord> batch = run_trials(s, problem, candidates, kernel_ids, batch_of(pending, first, side_by_side),
                                                race_screened > 0 ? race_stop_rule() : screening_stop_rule());
    s.db->transaction([&] {
      for (TrialRecord& trial : batch) trial.id = s.db->insert_trial(trial);
    });
    for (std::size_t k = 0; k < batch.size(); ++k) {
      const TrialRecord& trial = batch[k];
      const std::size_t n = first + k;
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
        s.progress->line(fmt::format("  {} {}: {}", to_string(trial.status),
                                     candidates[pending[n]].candidate.config.label(),
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
  }
  if (race_screened > 0) screen_race_leaders(s, problem, candidates, kernel_ids, race_screened, outcome);
  const std::optional<SettledWinner> settled = settle_finalists(s, problem, candidates, kernel_ids, outcome);
  if (!settled) return outcome;
  const FinalReply& final_times = settled->round;
  const TrialRecord& best = settled->trial;
  const BuiltCandidate* winner = settled->build;
  const auto kernel = s.db->kernel(best.kernel_id);
  auto median = [&](Provider provider) {
    const auto it = final_times.times.find(provider);
    return it != final_times.times.end() ? it->second.median_us : kNotMeasured;
  };
  WinnerRecord w;
  w.device_id = s.device_id;
  w.run_id = s.run_id;
  w.problem = problem;
  w.kernel_id = best.kernel_id;
  w.trial_id = best.id;
  const TimingStats& ours = settled->timing.stats;
  w.time_us = ours.median_us;
  w.spread_pct = ours.spread_pct;
  w.max_diff = settled->timing.max_diff;
  w.sm_clock_mhz = ours.sm_clock_mhz > 0 ? ours.sm_clock_mhz : kNotMeasured;
  w.throttled_rounds = ours.throttled_rounds;
  w.cublas_nn_us = median(Provider::CublasNn);
  w.cublas_tn_us = median(Provider::CublasTn);
  w.cublaslt_heuristic_us = median(Provider::CublasltHeuristic);
  w.cublaslt_autotune_us = median(Provider::CublasltAutotune);
  const auto trials = trials_of(s, problem, kernel_ids);
  w.candidates_timed = int(std::count_if(trials.begin(), trials.end(),
                                         [](const TrialRecord& t) { return t.status == TrialStatus::Ok; }));
  s.db->put_winner(w);
  if (s.options.counters) record_counters(s, problem, *winner, best.kernel_id);
  outcome.has_winner = true;
  outcome.winner_us = w.time_us;
  outcome.speedup_vs_cublas_max = w.speedup_vs_cublas_max();
  outcome.speedup_vs_cublaslt_autotune = w.speedup_vs_cublaslt_autotune();
  outcome.winner_label = kernel ? KernelConfig::from_json(kernel->config_json).label() : "";
  return outcome;
}

}  // namespace cl2
