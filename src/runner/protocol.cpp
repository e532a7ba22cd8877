#include "runner/protocol.hpp"

namespace cl2 {

using nlohmann::json;

json to_json(const LaunchGeometry& g) {
  json maps = json::array();
  for (const auto& box : g.tensor_maps)
    maps.push_back({{"operand", box.operand},
                    {"box_inner", box.box_inner},
                    {"box_outer", box.box_outer},
                    {"swizzle_bytes", box.swizzle_bytes}});
  return {{"threads", g.threads},           {"grid", g.grid},
          {"cluster", g.cluster},           {"smem_bytes", g.smem_bytes},
          {"workspace_bytes", g.workspace_bytes}, {"tensor_maps", maps},
          {"runtime", g.runtime}};
}

LaunchGeometry launch_geometry_from_json(const json& j) {
  LaunchGeometry g;
  g.threads = j.at("threads").get<int>();
  g.grid = j.at("grid").get<std::array<std::int64_t, 3>>();
  g.cluster = j.at("cluster").get<std::array<int, 3>>();
  g.smem_bytes = j.at("smem_bytes").get<std::int64_t>();
  g.workspace_bytes = j.at("workspace_bytes").get<std::int64_t>();
  for (const auto& box : j.at("tensor_maps"))
    g.tensor_maps.push_back({box.at("operand").get<std::string>(), box.at("box_inner").get<int>(),
                             box.at("box_outer").get<int>(), box.at("swizzle_bytes").get<int>()});
  g.runtime = j.at("runtime").get<std::map<std::string, std::int64_t>>();
  return g;
}

json to_json(const Problem& p) {
  return {{"m", p.shape.m},
          {"n", p.shape.n},
          {"k", p.shape.k},
          {"layout", std::string(to_string(p.layout))},
          {"accum", std::string(to_string(p.accum))}};
}

Problem problem_from_json(const json& j) {
  Problem p;
  p.shape = {j.at("m").get<std::int64_t>(), j.at("n").get<std::int64_t>(), j.at("k").get<std::int64_t>()};
  p.layout = parse_layout(j.at("layout").get<std::string>(), "layout");
  p.accum = parse_accum(j.at("accum").get<std::string>(), "accum");
  return p;
}

json to_json(const StopRule& r) {
  return {{"min_samples", r.min_samples}, {"max_samples", r.max_samples},
          {"max_noise", r.max_noise},     {"min_seconds", r.min_seconds},
          {"max_seconds", r.max_seconds}, {"replay_target_us", r.replay_target_us}};
}

StopRule stop_rule_from_json(const json& j) {
  StopRule r;
  r.min_samples = j.value("min_samples", r.min_samples);
  r.max_samples = j.value("max_samples", r.max_samples);
  r.max_noise = j.value("max_noise", r.max_noise);
  r.min_seconds = j.value("min_seconds", r.min_seconds);
  r.max_seconds = j.value("max_seconds", r.max_seconds);
  r.replay_target_us = j.value("replay_target_us", r.replay_target_us);
  return r;
}

json to_json(const TimingStats& s) {
  return {{"median_us", s.median_us}, {"mean_us", s.mean_us},       {"min_us", s.min_us},
          {"max_us", s.max_us},       {"spread_pct", s.spread_pct}, {"samples", s.samples},
          {"calls_per_sample", s.calls_per_sample}};
}

TimingStats timing_stats_from_json(const json& j) {
  TimingStats s;
  s.median_us = j.at("median_us").get<double>();
  s.mean_us = j.value("mean_us", s.median_us);
  s.min_us = j.value("min_us", s.median_us);
  s.max_us = j.value("max_us", s.median_us);
  s.spread_pct = j.value("spread_pct", 0.0);
  s.samples = j.value("samples", 0);
  s.calls_per_sample = j.value("calls_per_sample", 1);
  return s;
}

StopRule screening_stop_rule() {
  return {.min_samples = 5, .max_samples = 60, .max_noise = 0.01, .min_seconds = 0.002,
          .max_seconds = 0.25, .replay_target_us = 200};
}

StopRule final_stop_rule() {
  return {.min_samples = 15, .max_samples = 400, .max_noise = 0.005, .min_seconds = 0.02,
          .max_seconds = 0.6, .replay_target_us = 300};
}

}  // namespace cl2
