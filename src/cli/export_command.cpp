#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "report/export.hpp"

namespace cl2 {

namespace {

// Writes to a temporary file beside `path` and renames it, so a failed export leaves the old file.
void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw UserError(fmt::format("{}: cannot write the export; choose a writable --output", path));
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

CommandRunner add_export_command(CLI::App& app) {
  struct Options {
    std::string db = "db/tuning.sqlite", device, format, output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write the best-kernel table (one winner per device and shape, with the library "
                "baselines measured beside it and the speedups)");
  cmd->add_option("--db", o->db, "Tuning database")->capture_default_str();
  cmd->add_option("--device", o->device, "Only devices whose name contains this text");
  cmd->add_option("--format", o->format, "json (for programs), csv, or md (for people)")->required();
  cmd->add_option("--output,-o", o->output, "Write to this file instead of standard output");
  return [o] {
    const ExportFormat format = parse_export_format(o->format);
    auto db = TuningDb::open(o->db, DbMode::ReadOnly);
    const std::string text = render_export(db->winner_rows(o->device), format);
    if (o->output.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
    else write_file_atomically(o->output, text);
    return 0;
  };
}

}  // namespace cl2
