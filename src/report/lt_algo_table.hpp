#pragma once
// The cuBLASLt algorithm fields as table columns, one per LtAlgoConfig field, for the views that
// show them in a table (`show`'s baselines, the Markdown export's algorithm table).
#include <optional>
#include <string>
#include <vector>

#include "core/lt_algo_config.hpp"
#include "report/text_table.hpp"

namespace cl2 {

// Appends one column per field, headed by its name.
void append_lt_algo_columns(std::vector<TableColumn>& columns);
// Appends the fields' cells, "-" for each where there is no config.
void append_lt_algo_cells(std::vector<std::string>& cells, const std::optional<LtAlgoConfig>& config);

}  // namespace cl2
