#include "report/show.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/kernel_config.hpp"
#include "report/lt_algo_table.hpp"
#include "report/text_table.hpp"
#include "report/winner_summary.hpp"

namespace cl2 {
namespace {

constexpr std::size_t kMaxReasonChars = 100;  // a compile log would wreck the table
constexpr std::size_t kRunsShown = 10;        // the latest; a nightly database keeps hundreds

std::string summary_line(const DbSummary& s) {
  return fmt::format("{} runs, {} devices, {} kernels, {} trials ({} ok), {} baselines, {} winners",
                     s.runs, s.devices, s.kernels, s.trials, s.trials_ok, s.baselines, s.winners);
}

std::string devices_table(const TuningDb& db) {
  TextTable table({{"id"},
                   {"name", Align::Left},
                   {"cc"},
                   {"SMs"},
                   {"driver", Align::Left},
                   {"CUDA", Align::Left},
                   {"cuBLAS", Align::Left},
                   {"NVRTC", Align::Left}});
  for (const auto& [id, device] : db.devices())
    table.add_row({std::to_string(id), device.name,
                   fmt::format("{}.{}", device.cc_major, device.cc_minor),
                   std::to_string(device.num_sms), device.driver_version,
                   device.cuda_runtime_version, device.cublas_version, device.nvrtc_version});
  return table.plain(2);
}

// Where a run's time went: "compiling 12s, setup 3s, screening 2m09s (2400), ..."; "-" before
// schema 8 and for commands that do not tune.
std::string stages_cell(const std::vector<RunStageTime>& stages) {
  std::vector<std::string> parts;
  for (const auto& s : stages)
    parts.push_back(s.stage == "racing" || s.stage == "screening"
                        ? fmt::format("{} {} ({})", s.stage, format_duration(s.seconds), s.count)
                        : fmt::format("{} {}", s.stage, format_duration(s.seconds)));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string runs_table(const std::vector<RunRecord>& runs) {
  TextTable table({{"id"},
                   {"started", Align::Left},
                   {"took"},
                   {"status", Align::Left},
                   {"shapes", Align::Left},
                   {"time by stage (candidates)", Align::Left}});
  for (const auto& r : runs)
    table.add_row({std::to_string(r.id), r.started_at, format_duration(r.seconds), r.status,
                   r.shapes_file.empty() ? "-" : r.shapes_file, stages_cell(r.stages)});
  return table.plain(2);
}

std::string winners_table(const std::vector<WinnerRow>& rows) {
  TextTable table({{"device", Align::Left},
                   {"problem", Align::Left},
                   {"family", Align::Left},
                   {"ours µs"},
                   {"TFLOP/s"},
                   {"vs cuBLAS-max"},
                   {"vs cuBLASLt-autotune"},
                   {"cuBLASLt-autotune algorithm", Align::Left}});
  for (const auto& row : rows)
    table.add_row({row.device.name, row.winner.problem.text(), row.kernel.family,
                   format_fixed(row.winner.time_us, 2), format_fixed(tflops(row.winner), 1),
                   format_speedup(row.winner.speedup_vs_cublas_max()),
                   format_speedup(row.winner.speedup_vs_cublaslt_autotune()),
                   lt_algo_summary(row.cublaslt_autotune_algo, "-")});
  return table.plain(2);
}

// The kernels a traced call ran; "-" for rows measured before calls were traced.
std::string kernels_cell(const std::optional<CallTrace>& trace) {
  if (!trace) return "-";
  return trace->traced() ? join_kernel_names(trace->kernel_names(), " + ") : "(not traced)";
}

// The kernels each call ran beside its time; cuBLASLt's algorithm fields follow ("-" for GemmEx
// and for rows measured before algorithms were recorded), then why the time is flagged, if it is.
std::string baselines_table(const std::vector<BaselineRecord>& baselines) {
  std::vector<TableColumn> columns = {{"provider", Align::Left}, {"time µs"}, {"kernels", Align::Left},
                                      {"spread %"},              {"samples"}, {"max_diff"},
                                      {"detail", Align::Left}};
  append_lt_algo_columns(columns);
  columns.push_back({"flag", Align::Left});
  TextTable table(std::move(columns));
  for (const auto& b : baselines) {
    std::vector<std::string> cells = {std::string(to_string(b.provider)), format_fixed(b.time_us, 2),
                                      kernels_cell(b.trace),               format_fixed(b.spread_pct, 2),
                                      std::to_string(b.samples),           format_significant(b.max_diff, 3),
                                      b.detail};
    append_lt_algo_cells(cells, b.lt_algo);
    cells.push_back(b.trace_flag.empty() ? "-" : b.trace_flag);
    table.add_row(std::move(cells));
  }
  return table.plain(4);
}

// Verified trials by time, then the failed ones; ties keep the order they were recorded in.
void sort_for_display(std::vector<TrialRecord>& trials) {
  auto rank = [](const TrialRecord& t) {
    return std::make_tuple(t.status != TrialStatus::Ok, std::isnan(t.time_us),
                           std::isnan(t.time_us) ? 0.0 : t.time_us);
  };
  std::stable_sort(trials.begin(), trials.end(),
                   [&](const TrialRecord& a, const TrialRecord& b) { return rank(a) < rank(b); });
}

std::string short_reason(const std::string& reason) {
  std::string line = reason.substr(0, reason.find('\n'));
  if (line.size() > kMaxReasonChars) line = line.substr(0, kMaxReasonChars - 3) + "...";
  return line;
}

std::string config_label(const TuningDb& db, std::int64_t kernel_id) {
  const auto kernel = db.kernel(kernel_id);
  return kernel ? KernelConfig::from_json(kernel->config_json).label()
                : fmt::format("kernel {} (missing)", kernel_id);
}

std::string trials_table(const TuningDb& db, std::vector<TrialRecord> trials,
                         std::int64_t winner_trial_id) {
  sort_for_display(trials);
  TextTable table({{"", Align::Left},
                   {"status", Align::Left},
                   {"time µs"},
                   {"spread %"},
                   {"samples"},
                   {"max_diff/tol", Align::Left},
                   {"config", Align::Left},
                   {"reason", Align::Left}});
  for (const auto& t : trials)
    table.add_row({t.id == winner_trial_id ? "*" : "", std::string(to_string(t.status)),
                   format_fixed(t.time_us, 2), format_fixed(t.spread_pct, 2),
                   std::to_string(t.samples),
                   format_significant(t.max_diff, 3) + "/" + format_significant(t.tolerance, 3),
                   config_label(db, t.kernel_id), short_reason(t.reason)});
  return table.plain(4);
}

// The --l2 options under which the database has trials of the problem's shape, when the problem's
// own policy has none: "show M N K" asks for warm, and a shape tuned only rotated would look untuned.
std::string other_policies_hint(const TuningDb& db, const Problem& problem) {
  const auto devices = db.devices();
  std::string hint;
  for (const L2Policy policy : kL2Policies) {
    Problem other = problem;
    other.l2 = policy;
    const bool tried = std::any_of(devices.begin(), devices.end(),
                                   [&](const auto& device) { return !db.trials(device.first, other).empty(); });
    if (policy != problem.l2 && tried)
      hint += fmt::format("{}--l2 {}", hint.empty() ? "; it has the shape under " : " or ", to_string(policy));
  }
  return hint;
}

}  // namespace

std::string render_db_overview(const TuningDb& db) {
  const DbSummary summary = db.summary();
  std::string out = fmt::format("Tuning database {} (schema {})\n{}\n", db.path(),
                                db.schema_version(), summary_line(summary));
  out += "\nDevices\n" + devices_table(db);
  if (summary.runs > 0)
    out += fmt::format("\nRuns{}\n", std::size_t(summary.runs) > kRunsShown
                                           ? fmt::format(" (the latest {} of {})", kRunsShown, summary.runs)
                                           : "") +
           runs_table(db.runs(kRunsShown));
  const auto rows = db.winner_rows();
  out += rows.empty() ? "\nNo winners yet.\n" : "\nWinners\n" + winners_table(rows);
  return out;
}

std::string render_problem_trials(const TuningDb& db, const Problem& problem) {
  std::string out;
  for (const auto& [device_id, device] : db.devices()) {
    const auto trials = db.trials(device_id, problem);
    if (trials.empty()) continue;
    const auto winner = db.winner(device_id, problem);
    const auto ok = std::count_if(trials.begin(), trials.end(), [](const TrialRecord& t) {
      return t.status == TrialStatus::Ok;
    });
    if (!out.empty()) out += '\n';
    out += fmt::format("{} on {} (device {})\n", problem.text(), device.name, device_id);
    const auto baselines = db.baselines(device_id, problem);
    out += baselines.empty() ? "  No baselines.\n" : "  Baselines\n" + baselines_table(baselines);
    out += fmt::format("  Trials: {} ({} ok){}\n", trials.size(), ok,
                       winner ? ", * = winner" : ", no winner yet");
    out += trials_table(db, trials, winner ? winner->trial_id : 0);
  }
  if (out.empty())
    return fmt::format("No trials of {} in {}{}.\n", problem.text(), db.path(), other_policies_hint(db, problem));
  return out;
}

}  // namespace cl2
