#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "report/model_quality.hpp"
#include "report/show.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

CommandRunner add_show_command(CLI::App& app) {
  struct Options {
    std::string db = "db/tuning.sqlite", layout = "tn", accum = "f32", l2 = "warm";
    std::vector<std::int64_t> mnk;
    bool model = false;
    std::vector<std::string> space_files;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "show", "Summarize the database, or with M N K list that shape's trials (fastest first, "
              "failures with their reasons)");
  cmd->add_option("--db", o->db, "Tuning database")->capture_default_str();
  cmd->add_option("mnk", o->mnk, "M N K of one shape")->expected(0, 3);
  cmd->add_option("--layout", o->layout, "Layout of that shape: tn or nn")->capture_default_str();
  cmd->add_option("--accum", o->accum, "Accumulator of that shape: f32 or f16")->capture_default_str();
  cmd->add_option("--l2", o->l2, "L2 policy that shape was tuned under: warm, rotate or flush")
      ->capture_default_str();
  cmd->add_flag("--model", o->model,
                "How well each family's cost model (with its calibration) ranks the measured variants of each "
                "shape, per device: rank correlation of estimate and time, and the model's first choice's "
                "time over the fastest measured");
  cmd->add_option("--space-file", o->space_files,
                  "With --model: space file of a family tuned with --space-file; repeatable");
  return [o] {
    if (o->model) {
      if (!o->mnk.empty()) throw UserError("show --model: summarizes every shape; leave out M N K");
      std::vector<FamilySpec> extra;
      for (const auto& path : o->space_files) extra.push_back(load_family_file(path));
      auto db = TuningDb::open(o->db, DbMode::ReadOnly);
      const std::string text = render_model_quality(*db, select_families({"all"}, extra));
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    }
    if (!o->mnk.empty() && o->mnk.size() != 3)
      throw UserError("show: give all three of M N K, or none for the summary");
    for (auto v : o->mnk)
      if (v < 1) throw UserError(fmt::format("show: dimension {} is not positive; M, N, K must be >= 1", v));
    // The options are read before the database, so that a misspelt one is what the error names.
    std::optional<Problem> problem;
    if (!o->mnk.empty())
      problem = Problem{{o->mnk[0], o->mnk[1], o->mnk[2]}, parse_layout(o->layout, "--layout"),
                        parse_accum(o->accum, "--accum"), parse_l2_policy(o->l2, "--l2")};
    auto db = TuningDb::open(o->db, DbMode::ReadOnly);
    const std::string text = problem ? render_problem_trials(*db, *problem) : render_db_overview(*db);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  };
}

}  // namespace cl2
