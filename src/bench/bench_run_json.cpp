// run.json: the whole BenchRun, so the report can be regenerated (or merged with torch timings)
// without the GPU. What only some runs have (traces, the runtime's database and routes) is
// optional on reading. Loaders key on "format" and "version"; a change that breaks them raises the
// version. NaN (a figure not measured) is written as null and read back as NaN.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "bench/bench_renderers.hpp"
#include "core/errors.hpp"
#include "core/json_numbers.hpp"

namespace cl2 {
namespace {

using nlohmann::json;

constexpr std::string_view kRunFormat = "cuda-l2-tune/bench-run";
constexpr int kRunVersion = 1;

// Unlike number_or_nan, the key must be there: a run.json without it is malformed.
double required_number_or_nan(const json& object, const char* key) {
  const json& value = object.at(key);
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

json timing_json(const ProviderTiming& t) {
  return {{"provider", std::string(to_string(t.provider))},
          {"mode", t.mode},
          {"interval_ms", t.interval_ms},
          {"gpu_us", number_or_null(t.gpu_us)},
          {"gpu_spread_pct", number_or_null(t.gpu_spread_pct)},
          {"gpu_samples", t.gpu_samples},
          {"wall_us", number_or_null(t.wall_us)},
          {"wall_spread_pct", number_or_null(t.wall_spread_pct)},
          {"wall_samples", t.wall_samples}};
}

// The provider of a timing or a trace. `where` names the file and the shape, for the message about
// a provider this build does not know.
Provider provider_from_json(const json& j, const std::string& where) {
  const std::string provider = j.at("provider").get<std::string>();
  const auto known = find_provider(provider);
  if (!known)
    throw UserError(fmt::format("{}, provider '{}': unknown provider; use one of {}", where, provider,
                                provider_names(bench_providers())));
  return *known;
}

ProviderTiming timing_from_json(const json& j, const std::string& where) {
  ProviderTiming t;
  t.provider = provider_from_json(j, where);
  t.mode = j.at("mode").get<std::string>();
  t.interval_ms = j.at("interval_ms").get<int>();
  t.gpu_us = required_number_or_nan(j, "gpu_us");
  t.gpu_spread_pct = required_number_or_nan(j, "gpu_spread_pct");
  t.gpu_samples = j.at("gpu_samples").get<int>();
  t.wall_us = required_number_or_nan(j, "wall_us");
  t.wall_spread_pct = required_number_or_nan(j, "wall_spread_pct");
  t.wall_samples = j.at("wall_samples").get<int>();
  return t;
}

json shape_json(const ShapeBench& shape) {
  json timings = json::array();
  for (const auto& timing : shape.timings) timings.push_back(timing_json(timing));
  json traces = json::array();
  for (const auto& traced : shape.traces)
    traces.push_back({{"provider", std::string(to_string(traced.provider))}, {"trace", to_json(traced.trace)}});
  json out = {{"m", shape.problem.shape.m},
          {"n", shape.problem.shape.n},
          {"k", shape.problem.shape.k},
          {"layout", to_string(shape.problem.layout)},
          {"accum", to_string(shape.problem.accum)},
          {"has_winner", shape.has_winner},
          {"winner_family", shape.winner_family},
          {"winner_config", shape.winner_config},  // kept as text: the exact KernelConfig JSON
          {"timings", std::move(timings)},
          {"traces", std::move(traces)}};
  // Only where the runtime was benched, so runs without it are written as they always were.
  if (shape.runtime_route) {
    out["runtime_route"] = {{"route", shape.runtime_route->route}, {"detail", shape.runtime_route->detail}};
    if (!shape.runtime_route->chosen_by.empty()) out["runtime_route"]["chosen_by"] = shape.runtime_route->chosen_by;
  }
  return out;
}

ShapeBench shape_from_json(const json& j, const std::string& source) {
  ShapeBench shape;
  shape.problem.shape = {j.at("m").get<std::int64_t>(), j.at("n").get<std::int64_t>(),
                         j.at("k").get<std::int64_t>()};
  shape.problem.layout = parse_layout(j.at("layout").get<std::string>(), source + " layout");
  shape.problem.accum = parse_accum(j.at("accum").get<std::string>(), source + " accum");
  shape.has_winner = j.at("has_winner").get<bool>();
  shape.winner_family = j.at("winner_family").get<std::string>();
  shape.winner_config = j.at("winner_config").get<std::string>();
  const std::string where = fmt::format("{}: shape {}", source, shape.problem.text());
  for (const auto& timing : j.at("timings")) shape.timings.push_back(timing_from_json(timing, where));
  // Runs written before bench could trace have no "traces".
  for (const auto& traced : j.value("traces", json::array()))
    shape.traces.push_back({provider_from_json(traced, where), call_trace_from_json(traced.at("trace"))});
  if (j.contains("runtime_route")) {
    const json& route = j.at("runtime_route");
    shape.runtime_route = RuntimeRoute{route.at("route").get<std::string>(), route.at("detail").get<std::string>(),
                                       route.value("chosen_by", std::string())};
  }
  return shape;
}

}  // namespace

json bench_run_to_json(const BenchRun& run) {
  json shapes = json::array();
  for (const auto& shape : run.shapes) shapes.push_back(shape_json(shape));
  json out = {{"format", kRunFormat},
          {"version", kRunVersion},
          {"device", run.device},
          {"measured_at", run.measured_at},
          {"peak_tflops", number_or_null(run.peak_tflops)},
          {"peak_gbps", number_or_null(run.peak_gbps)},
          {"read_gbps", number_or_null(run.read_gbps)},
          {"l2", to_string(run.l2)},
          {"intervals_ms", run.intervals_ms},
          {"shapes", std::move(shapes)}};
  if (!run.runtime_db.empty()) out["runtime_db"] = run.runtime_db;
  return out;
}

BenchRun bench_run_from_json(const json& doc, const std::string& source) {
  if (!doc.is_object() || doc.value("format", "") != kRunFormat)
    throw UserError(fmt::format("{}: not a bench run (no \"format\": \"{}\"); give the run.json "
                                "that cuda-l2-tune bench wrote",
                                source, kRunFormat));
  if (doc.value("version", 0) != kRunVersion)
    throw UserError(fmt::format("{}: bench run version {} is not {}; regenerate it with this "
                                "cuda-l2-tune",
                                source, doc.value("version", 0), kRunVersion));
  try {
    BenchRun run;
    run.device = doc.at("device").get<DeviceInfo>();
    run.measured_at = doc.at("measured_at").get<std::string>();
    run.peak_tflops = required_number_or_nan(doc, "peak_tflops");
    run.peak_gbps = required_number_or_nan(doc, "peak_gbps");
    // Runs written before the L2 policies said only whether the L2 was flushed.
    if (doc.contains("l2")) run.l2 = parse_l2_policy(doc.at("l2").get<std::string>(), source + " l2");
    else run.l2 = doc.at("cold_l2").get<bool>() ? L2Policy::Flush : L2Policy::Warm;
    run.read_gbps = doc.contains("read_gbps") ? required_number_or_nan(doc, "read_gbps") : 0.0;
    run.intervals_ms = doc.at("intervals_ms").get<std::vector<int>>();
    run.runtime_db = doc.value("runtime_db", "");
    for (const auto& shape : doc.at("shapes")) {
      run.shapes.push_back(shape_from_json(shape, source));
      run.shapes.back().problem.l2 = run.l2;  // every shape was timed under the run's policy
    }
    return run;
  } catch (const json::exception& error) {
    // json's own message names the key or the type that was wrong, e.g. "key 'gpu_us' not found".
    throw UserError(fmt::format("{}: malformed bench run ({}); regenerate it with cuda-l2-tune bench",
                                source, error.what()));
  }
}

}  // namespace cl2
