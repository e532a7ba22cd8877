#pragma once
// A table of text cells rendered with aligned columns, either as plain text for the terminal
// (`show`) or as a GitHub Markdown table (`export --format md`), so both read the same way.
#include <functional>
#include <string>
#include <vector>

namespace cl2 {

enum class Align { Left, Right };

struct TableColumn {
  std::string header;
  Align align = Align::Right;  // numbers right, names left
};

class TextTable {
 public:
  explicit TextTable(std::vector<TableColumn> columns);
  void add_row(std::vector<std::string> cells);  // one cell per column
  bool empty() const { return rows_.empty(); }

  std::string plain(int indent = 0) const;  // header, a rule of dashes, the rows
  std::string markdown() const;

 private:
  // How a line is put together: open, cells joined by separator, close; the rule under the
  // header; the narrowest a column may be.
  struct LineStyle {
    std::string open, separator, close;
    std::size_t min_width;
    std::function<std::string(std::size_t width, Align align)> rule;
  };
  std::vector<std::size_t> column_widths() const;
  std::string render(const LineStyle& style) const;

  std::vector<TableColumn> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Cell text for a number: fixed decimals, "-" where it was not measured (NaN).
std::string format_fixed(double value, int decimals);
// Significant digits for quantities of any magnitude (max_diff), or "-".
std::string format_significant(double value, int digits);
// A speedup ratio: "1.234x", or "-".
std::string format_speedup(double ratio);
// A duration: "42s", "3m07s", "2h05m"; "-" where it was not measured (NaN).
std::string format_duration(double seconds);

}  // namespace cl2
