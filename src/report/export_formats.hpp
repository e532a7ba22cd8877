#pragma once
// One renderer per export format, each in its own file; render_export() picks one.
#include <string>
#include <vector>

#include "db/records.hpp"

namespace cl2 {

std::string render_export_json(const std::vector<WinnerRow>& rows);
std::string render_export_csv(const std::vector<WinnerRow>& rows);
std::string render_export_markdown(const std::vector<WinnerRow>& rows);

}  // namespace cl2
