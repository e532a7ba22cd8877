#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "report/best_kernel_table.hpp"
#include "report/compare.hpp"

namespace cl2 {

CommandRunner add_compare_command(CLI::App& app) {
  struct Options {
    std::string before, after, markdown, junit;
    CompareOptions thresholds;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two best-kernel tables (tuning databases or JSON exports), e.g. last night's and "
      "tonight's: per device and shape, our winner's time and its speedup over cuBLASLt-autotune, "
      "the software versions and kernels that changed. Exit status 1 when a shape regressed (slower, "
      "overtaken by the library, or lost its winner), 0 otherwise.");
  cmd->add_option("before", o->before, "The reference table (a .sqlite database or an export .json)")->required();
  cmd->add_option("after", o->after, "The table to judge against it")->required();
  cmd->add_option("--markdown", o->markdown, "Write the summary here (default: standard output)");
  cmd->add_option("--junit", o->junit, "Also write JUnit XML here: one test case per device and shape");
  cmd->add_option("--min-change-pct", o->thresholds.min_change_pct,
                  "Changes smaller than this (percent) never count")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--noise-factor", o->thresholds.noise_factor,
                  "Changes smaller than this many times the two measurements' recorded spreads "
                  "(combined) never count")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  return [o] {
    const auto before = read_best_kernel_table(o->before);
    const auto after = read_best_kernel_table(o->after);
    const Comparison comparison = compare_tables(before, after, o->thresholds);
    const std::string markdown = render_comparison_markdown(comparison, o->before, o->after, o->thresholds);
    if (o->markdown.empty()) std::fwrite(markdown.data(), 1, markdown.size(), stdout);
    else write_file_atomically(o->markdown, markdown, "choose a writable --markdown path");
    if (!o->junit.empty())
      write_file_atomically(o->junit, render_comparison_junit(comparison), "choose a writable --junit path");
    return comparison.has_failures() ? 1 : 0;
  };
}

}  // namespace cl2
