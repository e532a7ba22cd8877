#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "report/text_table.hpp"

using namespace cl2;

namespace {
TextTable sample_table() {
  TextTable table({{"name", Align::Left}, {"µs"}});
  table.add_row({"a|b", "1.50"});
  table.add_row({"longer", "12.25"});
  return table;
}
}  // namespace

TEST(TextTable, PlainAlignsColumns) {
  EXPECT_EQ(sample_table().plain(2),
            "  name       µs\n"
            "  ------  -----\n"
            "  a|b      1.50\n"
            "  longer  12.25\n");
}

TEST(TextTable, MarkdownMarksAlignmentAndEscapesPipes) {
  EXPECT_EQ(sample_table().markdown(),
            "| name   |    µs |\n"
            "| :----- | ----: |\n"
            "| a\\|b   |  1.50 |\n"
            "| longer | 12.25 |\n");
}

TEST(TextTable, RowMustFillEveryColumn) {
  TextTable table({{"a"}, {"b"}});
  EXPECT_THROW(table.add_row({"1"}), std::logic_error);
}

TEST(TextTable, NumbersShowDashWhenNotMeasured) {
  EXPECT_EQ(format_fixed(5123.4567, 3), "5123.457");
  EXPECT_EQ(format_fixed(std::nan(""), 2), "-");
  EXPECT_EQ(format_speedup(1.23456), "1.235x");
  EXPECT_EQ(format_speedup(std::nan("")), "-");
}
