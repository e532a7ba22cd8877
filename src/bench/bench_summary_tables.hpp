#pragma once
// The speedup tables summary.md is made of: a row per mode or size class, a column per comparison,
// each cell the geometric mean (arithmetic mean) of one figure's speedups over the row's shapes.
// CUDA-L2's tables of ours against the libraries (bench_summary.cpp) and the runtime library's
// against ours and cuBLASLt-autotune (bench_runtime_section.cpp) share them.
#include <string>
#include <vector>

#include "bench/bench_view.hpp"

namespace cl2 {

// The heading of one figure's tables: "GPU time (CUDA events; ...)".
std::string figure_title(Figure figure);

struct SummaryColumn {
  std::string header;     // "vs cuBLASLt-autotune"
  Comparison comparison;  // whose speedup the column holds
};

struct SpeedupRow {
  std::string label;  // "offline", "small"
  BenchMode mode;
  std::vector<const ShapeView*> shapes;
};

// A Markdown table: the row's label, how many of its shapes `counted` has a time for, and a cell
// per column; "[n shapes]" follows a cell averaged over fewer shapes than that, "-" a cell over none.
std::string speedup_table(const std::string& first_header, const std::vector<SpeedupRow>& rows, Figure figure,
                          const std::vector<SummaryColumn>& columns, Provider counted);

// One row per mode of the run, over all its shapes.
std::vector<SpeedupRow> mode_rows(const BenchView& view);
std::vector<const ShapeView*> all_shapes(const BenchView& view);

}  // namespace cl2
