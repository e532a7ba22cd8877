#include <fmt/format.h>

#include "cli/commands.hpp"
#include "compiler/kernel_compiler.hpp"
#include "core/errors.hpp"
#include "profile/profile_run.hpp"

namespace cl2 {

CommandRunner add_profile_command(CLI::App& app) {
  auto o = std::make_shared<ProfileOptions>();
  auto mnk = std::make_shared<std::vector<std::int64_t>>();
  auto layout = std::make_shared<std::string>("tn");
  auto accum = std::make_shared<std::string>("f32");
  auto l2 = std::make_shared<std::string>("warm");
  CLI::App* cmd = app.add_subcommand(
      "profile", "Hardware counters (CUPTI Range Profiler, one launch each) of a shape's winner and of the "
                 "library's fastest call, side by side with what limits each; stored in the database");
  cmd->add_option("mnk", *mnk, "M N K of the shape")->expected(3)->required();
  cmd->add_option("--db", o->db_path, "Tuning database holding the shape's winner")->capture_default_str();
  cmd->add_option("--layout", *layout, "Layout of the shape: tn or nn")->capture_default_str();
  cmd->add_option("--accum", *accum, "Accumulator of the shape: f32 or f16")->capture_default_str();
  cmd->add_option("--l2", *l2, "L2 policy the shape was tuned under: warm, rotate or flush")
      ->capture_default_str();
  cmd->add_option("--space-file", o->space_files, "Space file of a family tuned with --space-file");
  cmd->add_option("--device", o->device, "GPU index")->capture_default_str();
  cmd->add_option("--cache-dir", o->cache_dir, "Cubin cache (default as for tune)");
  cmd->add_flag("--fake-gpu", o->fake_gpu, "Testing aid: a worker that invents its results instead of using a GPU")
      ->group("");  // hidden from --help
  return [o, mnk, layout, accum, l2] {
    for (const auto v : *mnk)
      if (v < 1) throw UserError(fmt::format("profile: dimension {} is not positive; M, N, K must be >= 1", v));
    o->problem = {{(*mnk)[0], (*mnk)[1], (*mnk)[2]}, parse_layout(*layout, "--layout"),
                  parse_accum(*accum, "--accum"), parse_l2_policy(*l2, "--l2")};
    if (o->cache_dir.empty()) o->cache_dir = default_cache_dir();
    o->command_line = fmt::format("profile {} --db {}", o->problem.text(), o->db_path);
    return run_profile(*o);
  };
}

}  // namespace cl2
