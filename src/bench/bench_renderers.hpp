#pragma once
// One renderer per file that write_bench_outputs() writes, each in its own source file.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "bench/bench_view.hpp"
#include "report/csv.hpp"

namespace cl2 {

std::string render_bench_csv(const BenchView& view);      // bench.csv
std::string render_speedups_csv(const BenchView& view);   // speedups.csv
std::string render_bench_summary(const BenchView& view);  // summary.md

// run.json: {"format": "cuda-l2-tune/bench-run", "version": 1, ...}; NaN is written as null.
nlohmann::json bench_run_to_json(const BenchRun& run);
// Throws UserError naming `source` when the document is not a bench run of a known version.
BenchRun bench_run_from_json(const nlohmann::json& doc, const std::string& source);

// RFC 4180 quoting of one CSV field; an empty field for a NaN number.
std::string csv_number(double value, int decimals);

}  // namespace cl2
