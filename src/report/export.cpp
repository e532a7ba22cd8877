#include "report/export.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "report/export_formats.hpp"

namespace cl2 {

ExportFormat parse_export_format(std::string_view text) {
  if (text == "json") return ExportFormat::Json;
  if (text == "csv") return ExportFormat::Csv;
  if (text == "md" || text == "markdown") return ExportFormat::Markdown;
  throw UserError(fmt::format("--format {}: unknown format; use json, csv, md, bundle or cpp", text));
}

std::string render_export(const std::vector<WinnerRow>& rows, ExportFormat format) {
  switch (format) {
    case ExportFormat::Json: return render_export_json(rows);
    case ExportFormat::Csv: return render_export_csv(rows);
    case ExportFormat::Markdown: return render_export_markdown(rows);
  }
  throw std::logic_error("unhandled ExportFormat");
}

}  // namespace cl2
