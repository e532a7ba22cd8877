#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "report/export.hpp"

namespace cl2 {

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
    else write_file_atomically(o->output, text, "choose a writable --output");
    return 0;
  };
}

}  // namespace cl2
