// Markdown and JUnit renderings of a Comparison (report/compare.hpp).
#include <fmt/format.h>

#include <cmath>

#include "report/compare.hpp"
#include "report/text_table.hpp"
#include "report/winner_summary.hpp"

namespace cl2 {

namespace {

std::string signed_pct(double pct) { return std::isfinite(pct) ? fmt::format("{:+.1f}%", pct) : "-"; }

std::string time_of(const WinnerRow* row) { return row ? format_fixed(row->winner.time_us, 2) : "-"; }

std::string lt_of(const WinnerRow* row) { return row ? format_fixed(row->winner.cublaslt_autotune_us, 2) : "-"; }

std::string speedup_of(const WinnerRow* row) {
  return row ? format_speedup(row->winner.speedup_vs_cublaslt_autotune()) : "-";
}

// One sentence on why a shape has its verdict.
std::string explanation(const ShapeComparison& s) {
  switch (s.verdict) {
    case Verdict::Regressed:
      return fmt::format("ours {:.1f}% slower (threshold {:.1f}%)", s.ours_change_pct, s.threshold_pct);
    case Verdict::LibraryAhead:
      return fmt::format("speedup over cuBLASLt-autotune {} (threshold {:.1f}%): the library got faster",
                         signed_pct(s.speedup_change_pct), s.threshold_pct);
    case Verdict::Lost: return "had a verified winner before and has none now";
    case Verdict::New: return "no winner before";
    case Verdict::Improved:
      return fmt::format("ours {}, speedup {}", signed_pct(s.ours_change_pct), signed_pct(s.speedup_change_pct));
    case Verdict::Unchanged: return "within the threshold";
  }
  return "";
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string kernel_text(const ShapeComparison& s) {
  const WinnerRow* row = s.after ? s.after : s.before;
  std::string text = fmt::format("{} {}", row->kernel.family, config_params_text(row->kernel.config_json));
  if (!s.kernel_change.empty()) text = fmt::format("{} ({})", text, s.kernel_change);
  return text;
}

}  // namespace

std::string render_comparison_markdown(const Comparison& comparison, const std::string& before_name,
                                       const std::string& after_name, const CompareOptions& options) {
  std::string out = fmt::format(
      "# cuda-l2-tune compare\n\nBefore: `{}`; after: `{}`. A time or speedup change counts when it exceeds "
      "the larger of {:.1f}% and {:.1f} times the two measurements' recorded spreads combined. Failures: a "
      "shape whose winner got slower, whose lead over cuBLASLt-autotune shrank (the library got faster), or "
      "that lost its winner.\n",
      before_name, after_name, options.min_change_pct, options.noise_factor);
  if (comparison.devices.empty()) out += "\nNeither table has any shape.\n";
  for (const auto& device : comparison.devices) {
    out += fmt::format("\n## {}\n\n", device.name);
    out += device.version_changes.empty()
               ? std::string("Software versions: unchanged.\n")
               : fmt::format("Software versions changed: {}.\n", fmt::join(device.version_changes, "; "));
    TextTable counts({{"verdict", Align::Left}, {"shapes"}});
    for (const Verdict v : {Verdict::Regressed, Verdict::LibraryAhead, Verdict::Lost, Verdict::Improved,
                            Verdict::New, Verdict::Unchanged})
      counts.add_row({std::string(to_string(v)), std::to_string(device.count(v))});
    out += "\n" + counts.markdown();
    TextTable changes({{"shape", Align::Left}, {"verdict", Align::Left}, {"ours before µs"}, {"ours after µs"},
                       {"change"}, {"threshold"}, {"cuBLASLt-autotune before µs"}, {"after µs"},
                       {"speedup before"}, {"after"}, {"why", Align::Left}, {"kernel now", Align::Left}});
    for (const auto& s : device.shapes) {
      if (s.verdict == Verdict::Unchanged) continue;
      const bool both = s.before && s.after;
      changes.add_row({s.problem.text(), std::string(to_string(s.verdict)), time_of(s.before), time_of(s.after),
                       both ? signed_pct(s.ours_change_pct) : "-", both ? fmt::format("{:.1f}%", s.threshold_pct) : "-",
                       lt_of(s.before), lt_of(s.after), speedup_of(s.before), speedup_of(s.after), explanation(s),
                       kernel_text(s)});
    }
    out += changes.empty() ? "\nEvery shape within the threshold.\n" : "\n" + changes.markdown();
  }
  return out;
}

std::string render_comparison_junit(const Comparison& comparison) {
  int tests = 0, failures = 0;
  std::string suites;
  for (const auto& device : comparison.devices) {
    int device_failures = 0;
    std::string cases;
    for (const auto& s : device.shapes) {
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(device.name),
                           xml_escape(s.problem.text()));
      if (is_failure(s.verdict)) {
        ++device_failures;
        cases += fmt::format(">\n      <failure message=\"{}: {}\">{}</failure>\n    </testcase>\n",
                             xml_escape(to_string(s.verdict)), xml_escape(explanation(s)),
                             xml_escape(fmt::format("ours {} -> {} us, cuBLASLt-autotune {} -> {} us, {}",
                                                    time_of(s.before), time_of(s.after), lt_of(s.before),
                                                    lt_of(s.after), kernel_text(s))));
      } else {
        cases += "/>\n";
      }
    }
    tests += int(device.shapes.size());
    failures += device_failures;
    suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n{}  </testsuite>\n",
                          xml_escape(device.name), device.shapes.size(), device_failures, cases);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cuda-l2-tune compare\" tests=\"{}\" "
      "failures=\"{}\">\n{}</testsuites>\n",
      tests, failures, suites);
}

}  // namespace cl2
