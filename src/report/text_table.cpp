#include "report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cl2 {
namespace {

// Terminal columns a UTF-8 cell takes ("µs" is three bytes, two columns): continuation bytes
// take none. Good enough for the headers and numbers we print.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(const std::string& text, std::size_t width, Align align) {
  const std::string fill(width - std::min(width, display_width(text)), ' ');
  return align == Align::Left ? text + fill : fill + text;
}

std::string escape_markdown(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string trim_right(std::string text) {
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

}  // namespace

TextTable::TextTable(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error(fmt::format("table row has {} cells for {} columns", cells.size(),
                                       columns_.size()));
  rows_.push_back(std::move(cells));
}

std::vector<std::size_t> TextTable::column_widths() const {
  std::vector<std::size_t> widths;
  for (const auto& column : columns_) widths.push_back(display_width(column.header));
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], display_width(row[i]));
  return widths;
}

std::string TextTable::render(const LineStyle& style) const {
  std::vector<std::size_t> widths = column_widths();
  for (auto& width : widths) width = std::max(width, style.min_width);
  auto line = [&](auto cell_text) {
    std::string text(style.open);
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (i) text += style.separator;
      text += cell_text(i);
    }
    text += style.close;
    return trim_right(std::move(text)) + "\n";
  };
  auto padded = [&](const std::vector<std::string>& cells) {
    return line([&](std::size_t i) { return pad(cells[i], widths[i], columns_[i].align); });
  };
  std::vector<std::string> headers;
  for (const auto& column : columns_) headers.push_back(column.header);
  std::string out = padded(headers);
  out += line([&](std::size_t i) { return style.rule(widths[i], columns_[i].align); });
  for (const auto& row : rows_) out += padded(row);
  return out;
}

std::string TextTable::plain(int indent) const {
  const std::string margin(static_cast<std::size_t>(indent), ' ');
  return render({margin, "  ", "", 0,
                 [](std::size_t width, Align) { return std::string(width, '-'); }});
}

std::string TextTable::markdown() const {
  // Escaped first, so the widths (and the alignment of the Markdown source) are those of the
  // text written.
  std::vector<TableColumn> columns = columns_;
  for (auto& column : columns) column.header = escape_markdown(column.header);
  TextTable escaped(std::move(columns));
  for (const auto& row : rows_) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(escape_markdown(cell));
    escaped.add_row(std::move(cells));
  }
  return escaped.render({"| ", " | ", " |", 3, [](std::size_t width, Align align) {
                           std::string rule(width, '-');  // ":--" left, "--:" right
                           rule[align == Align::Right ? width - 1 : 0] = ':';
                           return rule;
                         }});
}

std::string format_fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  return fmt::format("{:.{}f}", value, decimals);
}

std::string format_significant(double value, int digits) {
  if (std::isnan(value)) return "-";
  return fmt::format("{:.{}g}", value, digits);
}

std::string format_speedup(double ratio) {
  return std::isnan(ratio) ? "-" : fmt::format("{:.3f}x", ratio);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const long s = long(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace cl2
