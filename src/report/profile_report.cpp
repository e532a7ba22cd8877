#include "report/profile_report.hpp"

#include <fmt/format.h>

#include "core/limiter.hpp"
#include "report/text_table.hpp"

namespace cl2 {

std::string render_profile(const Problem& problem, const std::string& device_name, const ProfiledCall& ours,
                           const ProfiledCall& library) {
  const std::string ours_title(provider_title(ours.provider)), library_title(provider_title(library.provider));
  std::string text = fmt::format("{} on {}: counters of one launch of each call (CUPTI Range Profiler)\n",
                                 problem.text(), device_name);
  text += fmt::format("  {}: {}\n  {}: {}\n\n", ours_title, ours.description, library_title, library.description);
  TextTable table({{"counter", Align::Left}, {ours_title}, {library_title}});
  for (const auto& metric : kCounterMetrics) {
    const auto cell = [&](const CallCounters& counters) {
      return format_fixed(counters.value(metric.metric) * metric.shown_factor, metric.shown_decimals);
    };
    table.add_row({std::string(metric.label), cell(ours.counters), cell(library.counters)});
  }
  text += table.plain(2) + "\n";
  for (const ProfiledCall* call : {&ours, &library}) {
    const LimiterVerdict verdict = judge_limiter(call->counters);
    text += fmt::format("  limiter, {}: {} ({})\n", provider_title(call->provider), to_string(verdict.limiter),
                        verdict.why);
  }
  return text;
}

}  // namespace cl2
