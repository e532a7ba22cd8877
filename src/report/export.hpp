#pragma once
// The best-kernel table in the forms other programs and people read: JSON (what run-time loaders
// consume; documented by the keys it writes), CSV (spreadsheets) and Markdown (reports).
#include <string>
#include <string_view>
#include <vector>

#include "db/records.hpp"

namespace cl2 {

enum class ExportFormat { Json, Csv, Markdown };

// "json", "csv", "md" (or "markdown"); UserError naming --format otherwise.
ExportFormat parse_export_format(std::string_view text);

// Rows as TuningDb::winner_rows() gives them (grouped by device); an empty list gives a valid,
// empty document.
std::string render_export(const std::vector<WinnerRow>& rows, ExportFormat format);

}  // namespace cl2
