#pragma once
// CSV as RFC 4180 writes it: a field with a comma, quote or line break is quoted, its quotes
// doubled. Shared by the exports, the bench tables and the reader of torch.matmul timings.
#include <string>
#include <vector>

namespace cl2 {

std::string csv_field(const std::string& text);
std::string csv_line(const std::vector<std::string>& fields);  // joined, quoted, '\n'-terminated
std::vector<std::string> split_csv_line(const std::string& line);  // the inverse, '\r' dropped

}  // namespace cl2
