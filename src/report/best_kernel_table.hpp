#pragma once
// The best-kernel table read back, from a tuning database or from a JSON export (what `export
// --format json` wrote), as winner rows: what `compare` reads on either side.
#include <string>
#include <vector>

#include "db/records.hpp"

namespace cl2 {

// Rows of the JSON export `text` (`source` names it in errors). Throws UserError for a document
// that is not a cuda-l2-tune best-kernel table of a known version.
std::vector<WinnerRow> parse_export_json(const std::string& text, const std::string& source);

// A SQLite file is opened as a tuning database (read-only), anything else parsed as a JSON export.
std::vector<WinnerRow> read_best_kernel_table(const std::string& path);

}  // namespace cl2
