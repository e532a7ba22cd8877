#include "core/call_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace cl2 {

double CallTrace::duration_us() const {
  return std::accumulate(kernels.begin(), kernels.end(), 0.0,
                         [](double sum, const TracedKernel& k) { return sum + k.duration_us; });
}

std::vector<std::string> CallTrace::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& kernel : kernels)
    if (std::find(names.begin(), names.end(), kernel.name) == names.end()) names.push_back(kernel.name);
  return names;
}

CallTrace absent_trace(std::string reason) { return {{}, std::move(reason)}; }

std::string join_kernel_names(const std::vector<std::string>& names, std::string_view separator) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : std::string(separator)) + name;
  return joined;
}

std::string timing_flag(double event_us_per_call, const CallTrace& trace) {
  if (!trace.traced()) return "";
  for (const auto& kernel : trace.kernels)
    if (!kernel.on_given_stream)
      return fmt::format("launched {} on a stream other than the one it was given (CUPTI stream {}), which "
                         "its event time does not see",
                         kernel.name, kernel.stream_id);
  const double traced_us = trace.kernel_us_per_call();
  if (event_us_per_call < traced_us * (1 - kTraceTolerance))
    return fmt::format("event time {:.2f} us per call is below the {:.2f} us per call its kernels ran ({} kernel "
                       "launch(es) over {} traced call(s))",
                       event_us_per_call, traced_us,
                       std::accumulate(trace.kernels.begin(), trace.kernels.end(), 0,
                                       [](int sum, const TracedKernel& k) { return sum + k.launches; }),
                       trace.calls);
  return "";
}

nlohmann::json to_json(const CallTrace& trace) {
  if (!trace.traced()) return {{"absent", trace.absent}};
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : trace.kernels)
    kernels.push_back({{"name", k.name},
                       {"stream_id", k.stream_id},
                       {"on_given_stream", k.on_given_stream},
                       {"grid", k.grid},
                       {"block", k.block},
                       {"launches", k.launches},
                       {"duration_us", k.duration_us}});
  nlohmann::json j = {{"kernels", kernels}, {"calls", trace.calls}};
  if (const auto& pass = trace.sample_pass)
    j["sample_pass"] = {{"event_us", pass->event_us}, {"kernel_us", pass->kernel_us}, {"span_us", pass->span_us}};
  return j;
}

CallTrace call_trace_from_json(const nlohmann::json& j) {
  if (j.contains("absent")) return absent_trace(j.at("absent").get<std::string>());
  CallTrace trace;
  trace.calls = j.value("calls", 1);
  if (const auto pass = j.find("sample_pass"); pass != j.end() && !pass->is_null())
    trace.sample_pass = PassTiming{pass->at("event_us").get<double>(), pass->at("kernel_us").get<double>(),
                                   pass->value("span_us", 0.0)};
  for (const auto& k : j.at("kernels"))
    trace.kernels.push_back({k.at("name").get<std::string>(), k.at("stream_id").get<std::uint32_t>(),
                             k.at("on_given_stream").get<bool>(), k.at("grid").get<std::array<int, 3>>(),
                             k.at("block").get<std::array<int, 3>>(), k.at("launches").get<int>(),
                             k.at("duration_us").get<double>()});
  return trace;
}

std::optional<CallTrace> call_trace_at(const nlohmann::json& object, const std::string& key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return call_trace_from_json(*it);
}

PassTiming pass_difference(const PassTiming& longer, const PassTiming& shorter) {
  return {longer.event_us - shorter.event_us, longer.kernel_us - shorter.kernel_us,
          longer.span_us - shorter.span_us};
}

}  // namespace cl2
