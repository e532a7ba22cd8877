#include "bench/bench_summary_tables.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/speedup_stats.hpp"
#include "report/text_table.hpp"

namespace cl2 {
namespace {

std::string stats_cell(const SpeedupStats& stats, int shapes_counted) {
  if (stats.count == 0) return "-";
  std::string cell = fmt::format("{:.3f} ({:.3f})", stats.geomean, stats.mean);
  if (stats.count < shapes_counted) cell += fmt::format(" [{} shapes]", stats.count);
  return cell;
}

}  // namespace

std::string figure_title(Figure figure) {
  return figure == Figure::Wall
             ? "Per-call time (wall clock around the call and a synchronize, as CUDA-L2 measures)"
             : "GPU time (CUDA events; offline: around graph-captured calls)";
}

std::string speedup_table(const std::string& first_header, const std::vector<SpeedupRow>& rows, Figure figure,
                          const std::vector<SummaryColumn>& columns, Provider counted) {
  std::vector<TableColumn> headers = {{first_header, Align::Left}, {"shapes"}};
  for (const auto& column : columns) headers.push_back({column.header});
  TextTable table(std::move(headers));
  for (const auto& row : rows) {
    int with_counted = 0;
    for (const ShapeView* shape : row.shapes)
      with_counted += std::isnan(shape->time_us(counted, row.mode, figure)) ? 0 : 1;
    std::vector<std::string> cells = {row.label, std::to_string(with_counted)};
    for (const auto& column : columns) {
      std::vector<double> ratios;
      for (const ShapeView* shape : row.shapes) ratios.push_back(shape->speedup(column.comparison, row.mode, figure));
      cells.push_back(stats_cell(speedup_stats(ratios), with_counted));
    }
    table.add_row(std::move(cells));
  }
  return table.markdown();
}

std::vector<const ShapeView*> all_shapes(const BenchView& view) {
  std::vector<const ShapeView*> shapes;
  for (const auto& shape : view.shapes) shapes.push_back(&shape);
  return shapes;
}

std::vector<SpeedupRow> mode_rows(const BenchView& view) {
  std::vector<SpeedupRow> rows;
  for (const auto& mode : view.modes) rows.push_back({mode.label(), mode, all_shapes(view)});
  return rows;
}

}  // namespace cl2
