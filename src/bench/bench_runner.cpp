// `cuda-l2-tune bench`: the database's winners against the libraries, offline and server mode,
// measured in this process (only verified winners run here; tuning's crash isolation is not needed).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>

#include "bench/bench_options.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_steps.hpp"
#include "bench/bench_traces.hpp"
#include "bench/runtime_provider.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/errors.hpp"
#include "db/device_match.hpp"
#include "db/tuning_db.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_query.hpp"
#include "tune/progress.hpp"

namespace cl2 {

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

int run_bench(const BenchOptions& options) {
  const auto problems = load_shape_file(options.shapes_path, options.defaults);
  const BenchPlan plan = make_bench_plan(options);
  // The inputs first, so that a bad --db or --runtime-db is reported on any machine (--db first:
  // it is also the runtime's where --runtime-db is not given).
  auto db = TuningDb::open(options.db_path, DbMode::ReadOnly);
  std::optional<RuntimeInput> runtime_input;
  if (!plan.runtime_db.empty()) runtime_input = read_runtime_db(plan.runtime_db, options.cache_dir);
  if (const std::string reason = gpu_unavailable_reason(options.device); !reason.empty())
    throw UserError(reason);
  BenchRun run;
  run.device = query_device(options.device);
  const std::int64_t device_id = device_in_db(*db, run.device);
  std::size_t with_winner = 0;
  for (const auto& problem : problems) with_winner += db->winner(device_id, problem).has_value();
  // The runtime dispatches every shape (to the nearest tuned one, or cuBLASLt): asked for by name, a
  // shapes file that --db never tuned is still worth benching. Within the default `all`, a --db
  // without these shapes (or tuned on another GPU) is the user's mistake, as it was before.
  if (with_winner == 0 && !plan.runtime_explicit)
    throw UserError(fmt::format("{}: no winners for {} among the shapes of {}; tune them first",
                                options.db_path, run.device.name, options.shapes_path));
  run.measured_at = utc_now();
  run.l2 = options.defaults.l2;
  run.intervals_ms = plan.server ? options.intervals_ms : std::vector<int>{};
  run.runtime_db = plan.runtime_db;

  BenchGpu gpu(options, run.device);
  if (runtime_input) gpu.runtime = std::make_unique<RuntimeProvider>(std::move(*runtime_input));
  measure_peaks(gpu, run);
  Progress progress(problems.size());
  progress.line(fmt::format("bench: {} shapes ({} tuned) on {}; peaks {:.0f} TFLOP/s, {:.0f} GB/s{}",
                            problems.size(), with_winner, run.device.name, run.peak_tflops, run.peak_gbps,
                            gpu.runtime ? "; runtime dispatching from " + run.runtime_db : ""));
  for (std::size_t i = 0; i < problems.size(); ++i) {
    progress.status(fmt::format("  [{}/{}] {} {}", i + 1, problems.size(), problems[i].text(), progress.eta()));
    run.shapes.push_back(bench_shape(gpu, *db, device_id, problems[i], plan));
    progress.unit_done();
  }
  run_torch_if_asked(options, plan, run, progress);
  write_bench_outputs(run, options.out_dir);
  plot_if_possible(options, progress);
  progress.line(fmt::format("bench: wrote {}/bench.csv, speedups.csv, summary.md, run.json{}", options.out_dir,
                            plan.trace ? ", trace.md, trace.json" : ""));
  if (plan.trace) {
    const BenchView view = make_bench_view(run);
    const auto comparisons = trace_comparisons(view);
    for (const auto& [label, provider] : {std::pair{"ours", std::optional(Provider::Ours)}, {"all calls", std::nullopt}})
      progress.line("bench: CUPTI against events, " + agreement_line(label, trace_agreement(comparisons, provider)));
  }
  return 0;
}

}  // namespace cl2
