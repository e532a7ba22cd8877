#include "report/lt_algo_table.hpp"

namespace cl2 {

void append_lt_algo_columns(std::vector<TableColumn>& columns) {
  for (const auto name : kLtAlgoFieldNames) columns.push_back({std::string(name), Align::Left});
}

void append_lt_algo_cells(std::vector<std::string>& cells, const std::optional<LtAlgoConfig>& config) {
  for (auto& text : lt_algo_field_texts(config, "-")) cells.push_back(std::move(text));
}

}  // namespace cl2
