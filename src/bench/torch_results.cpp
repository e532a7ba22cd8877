// Reads the CSV that scripts/torch_bench.py writes (on the GPU machine, where PyTorch is) and adds
// its timings to a bench run as provider "torch". Columns are found by name, so the script may
// append columns (it adds a "note"); rows for shapes the run does not hold are ignored, and a
// shape's earlier torch timing of the same mode is replaced, so merging twice changes nothing.
#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <map>

#include "bench/bench_report.hpp"
#include "report/csv.hpp"
#include "core/errors.hpp"

namespace cl2 {
namespace {

const std::vector<std::string>& torch_columns() {
  static const std::vector<std::string> names = {
      "M",      "N",        "K",           "layout",         "accum",
      "mode",   "interval_ms", "gpu_us",   "gpu_spread_pct", "gpu_samples",
      "wall_us", "wall_spread_pct", "wall_samples"};
  return names;
}

// The fields of one data row by column name, with number parsing that names the file, the line
// and the column when a value is not a number.
class TorchRow {
 public:
  TorchRow(const std::map<std::string, std::size_t>& columns, std::vector<std::string> fields,
           std::string where)
      : columns_(columns), fields_(std::move(fields)), where_(std::move(where)) {}

  const std::string& text(const std::string& column) const { return fields_.at(columns_.at(column)); }

  template <typename Number>
  Number number(const std::string& column, Number if_empty) const {
    const std::string& value = text(column);
    if (value.empty()) return if_empty;
    Number parsed{};
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size())
      throw UserError(fmt::format("{}: {} = '{}' is not a number; rewrite it with "
                                  "scripts/torch_bench.py",
                                  where_, column, value));
    return parsed;
  }
  template <typename Number>
  Number required(const std::string& column) const {
    if (text(column).empty())
      throw UserError(fmt::format("{}: {} is empty; rewrite it with scripts/torch_bench.py", where_,
                                  column));
    return number<Number>(column, Number{});
  }

  const std::string& where() const { return where_; }

 private:
  const std::map<std::string, std::size_t>& columns_;
  std::vector<std::string> fields_;
  std::string where_;
};

std::map<std::string, std::size_t> column_indices(const std::vector<std::string>& names,
                                                  const std::string& path) {
  std::map<std::string, std::size_t> columns;
  for (std::size_t i = 0; i < names.size(); ++i) columns.emplace(names[i], i);
  for (const auto& name : torch_columns())
    if (!columns.count(name))
      throw UserError(fmt::format("{}: the header has no column '{}'; expected the CSV of "
                                  "scripts/torch_bench.py ({})",
                                  path, name, fmt::join(torch_columns(), ",")));
  return columns;
}

Problem row_problem(const TorchRow& row) {
  Problem problem;
  problem.shape = {row.required<std::int64_t>("M"), row.required<std::int64_t>("N"),
                   row.required<std::int64_t>("K")};
  problem.layout = parse_layout(row.text("layout"), row.where() + " layout");
  problem.accum = parse_accum(row.text("accum"), row.where() + " accum");
  return problem;
}

ProviderTiming row_timing(const TorchRow& row) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ProviderTiming t;
  t.provider = Provider::Torch;
  t.mode = row.text("mode");
  t.interval_ms = row.required<int>("interval_ms");
  if (!((t.mode == "offline" && t.interval_ms == 0) || (t.mode == "server" && t.interval_ms > 0)))
    throw UserError(fmt::format("{}: mode '{}' with interval_ms {}; expected offline with 0 or "
                                "server with a gap above 0",
                                row.where(), t.mode, t.interval_ms));
  t.gpu_us = row.number("gpu_us", kNaN);
  t.gpu_spread_pct = row.number("gpu_spread_pct", kNaN);
  t.gpu_samples = row.number("gpu_samples", 0);
  t.wall_us = row.number("wall_us", kNaN);
  t.wall_spread_pct = row.number("wall_spread_pct", kNaN);
  t.wall_samples = row.number("wall_samples", 0);
  return t;
}

void put_timing(ShapeBench& shape, ProviderTiming timing) {
  for (auto& existing : shape.timings) {
    if (existing.provider == timing.provider && existing.mode == timing.mode &&
        existing.interval_ms == timing.interval_ms) {
      existing = std::move(timing);
      return;
    }
  }
  shape.timings.push_back(std::move(timing));
}

}  // namespace

void merge_torch_results(BenchRun& run, const std::string& torch_csv_path) {
  std::ifstream in(torch_csv_path);
  if (!in)
    throw UserError(fmt::format("{}: cannot read the torch results; run scripts/torch_bench.py "
                                "--out {} first or fix the path",
                                torch_csv_path, torch_csv_path));
  std::string line;
  if (!std::getline(in, line))
    throw UserError(fmt::format("{}: empty file; expected the CSV of scripts/torch_bench.py",
                                torch_csv_path));
  const std::vector<std::string> header = split_csv_line(line);
  const auto columns = column_indices(header, torch_csv_path);
  // Parsed completely before anything is merged, so a malformed file leaves the run as it was.
  std::vector<std::pair<Problem, ProviderTiming>> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line == "\r") continue;
    const std::string where = fmt::format("{}:{}", torch_csv_path, number);
    std::vector<std::string> fields = split_csv_line(line);
    if (fields.size() != header.size())
      throw UserError(fmt::format("{}: {} fields for {} columns; rewrite it with "
                                  "scripts/torch_bench.py",
                                  where, fields.size(), header.size()));
    const TorchRow row(columns, std::move(fields), where);
    rows.emplace_back(row_problem(row), row_timing(row));
  }
  for (auto& [problem, timing] : rows)
    for (auto& shape : run.shapes)
      if (shape.problem == problem) put_timing(shape, timing);
}

}  // namespace cl2
