#include "bench/bench_traces.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bench/bench_summary_sections.hpp"
#include "core/json_numbers.hpp"
#include "report/text_table.hpp"

namespace cl2 {
namespace {

double deviation(const TraceComparison& c) { return std::abs(c.agreement_ratio() - 1); }

bool has_traces(const BenchView& view) {
  for (const auto& shape : view.shapes)
    if (!shape.bench().traces.empty()) return true;
  return false;
}

// The providers traced in the run, in report order.
std::vector<Provider> traced_providers(const std::vector<TraceComparison>& comparisons) {
  std::vector<Provider> providers;
  for (const Provider provider : report_providers())
    for (const auto& c : comparisons)
      if (c.provider == provider) {
        providers.push_back(provider);
        break;
      }
  return providers;
}

std::vector<std::string> agreement_lines(const std::vector<TraceComparison>& comparisons) {
  std::vector<std::string> lines;
  for (const Provider provider : traced_providers(comparisons))
    lines.push_back(agreement_line(std::string(provider_title(provider)), trace_agreement(comparisons, provider)));
  lines.push_back(agreement_line("all calls", trace_agreement(comparisons, std::nullopt)));
  return lines;
}

std::string reading_guide() {
  return fmt::format(
      "Each call's kernels' time per call as CUPTI recorded them, against event GPU time per call. "
      "Timed: the offline GPU time (CUDA events around graph replays of back-to-back calls) against "
      "the kernels of a pass of the same number of calls launched one by one right after the timing "
      "(the pass that shows work on other streams); at the power cap the clocks drift between the "
      "two. Same pass: one timed sample replayed with CUPTI on, as a graph of its calls and of twice "
      "as many, the difference of the two (what tracing costs each replay once drops out), its "
      "events against its kernels at one clock: CUPTI's span (first kernel start to last kernel "
      "end) and its kernels' summed time, which is below the span by the gaps between kernels. "
      "Ratio = event / CUPTI: the events also count the gaps between launches, so a call whose "
      "events see all its work is at or a little above 1. \"within {:.0f}%\": |ratio - 1| at most "
      "{:.0f}%, by the same pass where there is one. A call is flagged when it ran a kernel on another "
      "stream or its timed event time is more than {:.0f}% below its kernels' time.\n",
      100 * kTraceAgreement, 100 * kTraceAgreement, 100 * kTraceTolerance);
}

std::string note(const TraceComparison& c) {
  if (!c.trace->traced()) return "absent: " + c.trace->absent;
  return c.flag.empty() ? "" : "flagged: " + c.flag;
}

}  // namespace

std::vector<TraceComparison> trace_comparisons(const BenchView& view) {
  std::vector<TraceComparison> comparisons;
  for (const auto& shape : view.shapes)
    for (const auto& traced : shape.bench().traces) {
      TraceComparison c{&shape, traced.provider, &traced.trace};
      c.event_us = shape.time_us(traced.provider, offline_mode(), Figure::Gpu);
      if (traced.trace.traced()) {
        c.kernel_us = traced.trace.kernel_us_per_call();
        c.ratio = c.event_us / c.kernel_us;
        if (std::isfinite(c.event_us)) c.flag = timing_flag(c.event_us, traced.trace);
        if (const auto& pass = traced.trace.sample_pass) {
          c.pass_event_us = pass->event_us / traced.trace.calls;
          c.pass_kernel_us = pass->kernel_us / traced.trace.calls;
          if (pass->span_us > 0) c.pass_span_us = pass->span_us / traced.trace.calls;
          c.pass_ratio = pass->event_us / pass->kernel_us;
        }
      }
      comparisons.push_back(std::move(c));
    }
  return comparisons;
}

double TraceComparison::agreement_ratio() const { return std::isfinite(pass_ratio) ? pass_ratio : ratio; }

TraceAgreement trace_agreement(const std::vector<TraceComparison>& comparisons, std::optional<Provider> provider) {
  TraceAgreement a;
  for (const auto& c : comparisons) {
    if (provider && c.provider != *provider) continue;
    if (!std::isfinite(c.agreement_ratio())) {
      ++a.absent;
      continue;
    }
    ++a.traced;
    if (std::isfinite(c.pass_ratio)) {
      ++a.same_pass;
      // A span stored as unmeasured (NaN) is within nothing.
      a.span_within += std::abs(c.pass_event_us / c.pass_span_us - 1) <= kTraceAgreement ? 1 : 0;
    }
    a.within += deviation(c) <= kTraceAgreement ? 1 : 0;
    a.flagged += c.flag.empty() ? 0 : 1;
    if (!a.worst || deviation(c) > deviation(*a.worst)) a.worst = &c;
  }
  return a;
}

std::string agreement_line(const std::string& label, const TraceAgreement& a) {
  std::string line = fmt::format("{}: {} traced", label, a.traced);
  if (a.same_pass > 0)
    line += fmt::format(" ({} by their own pass, {} of them within {:.0f}% of CUPTI's span)", a.same_pass,
                        a.span_within, 100 * kTraceAgreement);
  if (a.absent > 0) line += fmt::format(", {} without a trace", a.absent);
  if (!a.worst) return line;
  return line + fmt::format("; {} of {} within {:.0f}%; max |ratio - 1| {:.2f}% ({}, ratio {:.3f}); {} flagged",
                            a.within, a.traced, 100 * kTraceAgreement, 100 * deviation(*a.worst),
                            a.worst->shape->problem().text(), a.worst->agreement_ratio(), a.flagged);
}

std::string render_trace_markdown(const BenchView& view) {
  const auto comparisons = trace_comparisons(view);
  std::string out = "# cuda-l2-tune bench: CUPTI kernel time against event GPU time\n\n" + reading_guide() + "\n";
  for (const auto& line : agreement_lines(comparisons)) out += "- " + line + "\n";
  TextTable table({{"shape", Align::Left},
                   {"provider", Align::Left},
                   {"timed event µs/call"},
                   {"CUPTI kernel µs/call"},
                   {"ratio"},
                   {"same pass: event µs/call"},
                   {"CUPTI span µs/call"},
                   {"CUPTI kernel µs/call"},
                   {"ratio"},
                   {"calls traced"},
                   {"kernels", Align::Left},
                   {"note", Align::Left}});
  for (const auto& c : comparisons)
    table.add_row({c.shape->problem().text(), std::string(provider_title(c.provider)), format_fixed(c.event_us, 3),
                   format_fixed(c.kernel_us, 3), format_fixed(c.ratio, 3), format_fixed(c.pass_event_us, 3),
                   format_fixed(c.pass_span_us, 3), format_fixed(c.pass_kernel_us, 3), format_fixed(c.pass_ratio, 3),
                   c.trace->traced() ? std::to_string(c.trace->calls) : "-",
                   join_kernel_names(c.trace->kernel_names(), " + "), note(c)});
  return out + "\n" + table.markdown();
}

nlohmann::json render_trace_json(const BenchView& view) {
  const auto comparisons = trace_comparisons(view);
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : comparisons) {
    const GemmShape& s = c.shape->problem().shape;
    calls.push_back({{"m", s.m},
                     {"n", s.n},
                     {"k", s.k},
                     {"layout", to_string(c.shape->problem().layout)},
                     {"accum", to_string(c.shape->problem().accum)},
                     {"provider", to_string(c.provider)},
                     {"event_us_per_call", number_or_null(c.event_us)},
                     {"kernel_us_per_call", number_or_null(c.kernel_us)},
                     {"ratio", number_or_null(c.ratio)},
                     {"same_pass_event_us_per_call", number_or_null(c.pass_event_us)},
                     {"same_pass_span_us_per_call", number_or_null(c.pass_span_us)},
                     {"same_pass_kernel_us_per_call", number_or_null(c.pass_kernel_us)},
                     {"same_pass_ratio", number_or_null(c.pass_ratio)},
                     {"flag", c.flag},
                     {"trace", to_json(*c.trace)}});
  }
  const TraceAgreement all = trace_agreement(comparisons, std::nullopt);
  return {{"agreement_pct", 100 * kTraceAgreement},
          {"summary", agreement_lines(comparisons)},
          {"traced", all.traced},
          {"within", all.within},
          {"same_pass", all.same_pass},
          {"same_pass_span_within", all.span_within},
          {"flagged", all.flagged},
          {"max_abs_deviation_pct", all.worst ? number_or_null(100 * deviation(*all.worst)) : nlohmann::json(nullptr)},
          {"calls", std::move(calls)}};
}

std::string trace_section(const BenchView& view) {
  if (!has_traces(view)) return "";
  std::string out = "\n## Kernel traces: CUPTI against events (offline)\n\n" + reading_guide() + "\n";
  for (const auto& line : agreement_lines(trace_comparisons(view))) out += "- " + line + "\n";
  return out + "\nEvery call, with its kernels: trace.md (and trace.json).\n";
}

}  // namespace cl2
