#include "bench/bench_report.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/bench_renderers.hpp"
#include "bench/bench_traces.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"

namespace cl2 {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputFix = "choose a writable output folder (--out)";

void create_output_dir(const std::string& out_dir) {
  std::error_code error;
  fs::create_directories(out_dir, error);
  if (error || !fs::is_directory(out_dir))
    throw UserError(fmt::format("{}: cannot create the output folder ({}); choose a writable path",
                                out_dir, error ? error.message() : "a file is in the way"));
}

}  // namespace

void write_bench_outputs(const BenchRun& run, const std::string& out_dir) {
  validate_bench_run(run, "bench run for " + out_dir);
  create_output_dir(out_dir);
  const BenchView view = make_bench_view(run);
  const fs::path dir(out_dir);
  write_file_atomically(dir / "run.json", bench_run_to_json(run).dump() + "\n", kOutputFix);
  write_file_atomically(dir / "bench.csv", render_bench_csv(view), kOutputFix);
  write_file_atomically(dir / "speedups.csv", render_speedups_csv(view), kOutputFix);
  write_file_atomically(dir / "summary.md", render_bench_summary(view), kOutputFix);
  if (!trace_comparisons(view).empty()) {
    write_file_atomically(dir / "trace.md", render_trace_markdown(view), kOutputFix);
    write_file_atomically(dir / "trace.json", render_trace_json(view).dump(2) + "\n", kOutputFix);
  }
}

BenchRun read_bench_run(const std::string& run_json_path) {
  std::ifstream in(run_json_path);
  if (!in)
    throw UserError(fmt::format("{}: cannot read the bench run; give the run.json in the folder "
                                "that cuda-l2-tune bench wrote",
                                run_json_path));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& error) {
    throw UserError(fmt::format("{}: malformed JSON at byte {}; give the run.json that "
                                "cuda-l2-tune bench wrote",
                                run_json_path, error.byte));
  }
  BenchRun run = bench_run_from_json(doc, run_json_path);
  validate_bench_run(run, run_json_path);
  return run;
}

}  // namespace cl2
