#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "report/export.hpp"
#include "runtime/cpp_export.hpp"
#include "runtime/runtime_export.hpp"

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
  cmd->add_option("--format", o->format,
                  "json (for programs), csv, md (for people), bundle (a folder libcl2 opens: table and cubins) or "
                  "cpp (a header with both, for programs without the files)")
      ->required();
  cmd->add_option("--output,-o", o->output,
                  "Write to this file (a folder for bundle) instead of standard output");
  return [o] {
    if (o->format == "bundle" || o->format == "cpp") {
      if (o->output.empty())
        throw UserError(fmt::format("--format {} needs -o {}", o->format, o->format == "bundle" ? "DIR" : "FILE.h"));
      auto db = TuningDb::open(o->db, DbMode::ReadOnly);
      const Bundle bundle = bundle_from_db(*db, o->device, KernelCompiler(default_cache_dir()));
      if (o->format == "bundle") write_bundle(bundle, o->output);
      else write_file_atomically(o->output, render_cpp_header(bundle), "choose a writable --output");
      std::fprintf(stderr, "%s: %zu shapes, %zu kernels of %s\n", o->output.c_str(), bundle.table.entries.size(),
                   bundle.kernels.size(), bundle.table.device.name.c_str());
      return 0;
    }
    const ExportFormat format = parse_export_format(o->format);
    auto db = TuningDb::open(o->db, DbMode::ReadOnly);
    const std::string text = render_export(db->winner_rows(o->device), format);
    if (o->output.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
    else write_file_atomically(o->output, text, "choose a writable --output");
    return 0;
  };
}

}  // namespace cl2
