#include "runner/protocol.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/json_numbers.hpp"

namespace cl2 {

using nlohmann::json;

json to_json(const LaunchGeometry& g) {
  json maps = json::array();
  for (const auto& box : g.tensor_maps)
    maps.push_back({{"operand", box.operand},
                    {"box_inner", box.box_inner},
                    {"box_outer", box.box_outer},
                    {"swizzle_bytes", box.swizzle_bytes},
                    {"box_depth", box.box_depth}});
  return {{"threads", g.threads},           {"grid", g.grid},
          {"cluster", g.cluster},           {"smem_bytes", g.smem_bytes},
          {"workspace_bytes", g.workspace_bytes}, {"programmatic", g.programmatic}, {"tensor_maps", maps},
          {"runtime", g.runtime}};
}

LaunchGeometry launch_geometry_from_json(const json& j) {
  LaunchGeometry g;
  g.threads = j.at("threads").get<int>();
  g.grid = j.at("grid").get<std::array<std::int64_t, 3>>();
  g.cluster = j.at("cluster").get<std::array<int, 3>>();
  g.smem_bytes = j.at("smem_bytes").get<std::int64_t>();
  g.workspace_bytes = j.at("workspace_bytes").get<std::int64_t>();
  g.programmatic = j.value("programmatic", false);
  for (const auto& box : j.at("tensor_maps"))
    g.tensor_maps.push_back({box.at("operand").get<std::string>(), box.at("box_inner").get<int>(),
                             box.at("box_outer").get<int>(), box.at("swizzle_bytes").get<int>(),
                             box.value("box_depth", 0)});
  g.runtime = j.at("runtime").get<std::map<std::string, std::int64_t>>();
  return g;
}

json to_json(const Problem& p) {
  return {{"m", p.shape.m},
          {"n", p.shape.n},
          {"k", p.shape.k},
          {"layout", std::string(to_string(p.layout))},
          {"accum", std::string(to_string(p.accum))},
          {"l2", std::string(to_string(p.l2))}};
}

Problem problem_from_json(const json& j) {
  Problem p;
  p.shape = {j.at("m").get<std::int64_t>(), j.at("n").get<std::int64_t>(), j.at("k").get<std::int64_t>()};
  p.layout = parse_layout(j.at("layout").get<std::string>(), "layout");
  p.accum = parse_accum(j.at("accum").get<std::string>(), "accum");
  // "l2" may be left out: a problem is warm unless it says otherwise, as before L2 policies.
  p.l2 = parse_l2_policy(j.value("l2", std::string(to_string(L2Policy::Warm))), "l2");
  return p;
}

json to_json(const TimingStats& s) {
  return {{"median_us", s.median_us}, {"mean_us", s.mean_us},       {"min_us", s.min_us},
          {"max_us", s.max_us},       {"spread_pct", s.spread_pct}, {"samples", s.samples},
          {"calls_per_sample", s.calls_per_sample}, {"throttled_rounds", s.throttled_rounds},
          {"sm_clock_mhz", s.sm_clock_mhz}};
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
  s.throttled_rounds = j.value("throttled_rounds", 0);
  s.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
  return s;
}

namespace {

constexpr const char* kHello = "hello";
constexpr const char* kProblem = "problem";
constexpr const char* kBaselines = "baselines";
constexpr const char* kTrial = "trial";
constexpr const char* kFinal = "final";
constexpr const char* kProfile = "profile";
constexpr const char* kQuit = "quit";

json to_json(const KernelRun& run) {
  return {{"cubin", run.cubin_path},
          {"launch", to_json(run.launch)},
          {"config", json::parse(run.config.to_json())},
          {"stop", to_json(run.stop)}};
}

KernelRun kernel_run_from_json(const json& j) {
  return {j.at("cubin").get<std::string>(), launch_geometry_from_json(j.at("launch")),
          KernelConfig::from_json(j.at("config").dump()), stop_rule_from_json(j.at("stop"))};
}

json with_op(const char* op, json body = json::object()) {
  body["op"] = op;
  return body;
}

json trace_or_null(const std::optional<CallTrace>& trace) { return trace ? to_json(*trace) : json(nullptr); }

json ok_reply(json body = json::object()) {
  body["ok"] = true;
  return body;
}

json request_json(const HelloRequest&) { return with_op(kHello); }
json request_json(const ProblemRequest& r) { return with_op(kProblem, {{"problem", to_json(r.problem)}}); }
json request_json(const BaselinesRequest& r) {
  return with_op(kBaselines, {{"max_algos", r.max_algorithms},
                              {"screen", to_json(r.screen)},
                              {"timing", to_json(r.timing)}});
}
json to_json(const std::vector<KernelRun>& runs) {
  json array = json::array();
  for (const auto& run : runs) array.push_back(to_json(run));
  return array;
}

std::vector<KernelRun> kernel_runs_from_json(const json& j) {
  std::vector<KernelRun> runs;
  for (const auto& run : j) runs.push_back(kernel_run_from_json(run));
  return runs;
}

json request_json(const TrialRequest& r) {
  return with_op(kTrial, {{"kernels", to_json(r.kernels)}, {"brief_check", r.brief_check}});
}
json request_json(const FinalRequest& r) { return with_op(kFinal, {{"finalists", to_json(r.finalists)}}); }
json request_json(const ProfileRequest& r) {
  json body = to_json(r.kernel);
  body["library_algo"] = lt_algo_to_json(r.library_algo);
  body["max_algos"] = r.max_algorithms;
  return with_op(kProfile, std::move(body));
}
json request_json(const QuitRequest&) { return with_op(kQuit); }

}  // namespace

json to_json(const WorkerRequest& request) {
  return std::visit([](const auto& r) { return request_json(r); }, request);
}

WorkerRequest worker_request_from_json(const json& j) {
  const std::string op = j.value("op", "");
  if (op == kHello) return HelloRequest{};
  if (op == kProblem) return ProblemRequest{problem_from_json(j.at("problem"))};
  if (op == kBaselines)
    return BaselinesRequest{j.at("max_algos").get<int>(), stop_rule_from_json(j.at("screen")),
                            stop_rule_from_json(j.at("timing"))};
  if (op == kTrial) return TrialRequest{kernel_runs_from_json(j.at("kernels")), j.at("brief_check").get<bool>()};
  if (op == kFinal) return FinalRequest{kernel_runs_from_json(j.at("finalists"))};
  if (op == kProfile)
    return ProfileRequest{kernel_run_from_json(j), lt_algo_at(j, "library_algo"), j.at("max_algos").get<int>()};
  if (op == kQuit) return QuitRequest{};
  throw std::runtime_error(fmt::format("unknown op '{}'", op));
}

json to_json(const HelloReply& reply) { return ok_reply({{"device", reply.device}}); }

HelloReply hello_reply_from_json(const json& j) { return {j.at("device").get<DeviceInfo>()}; }

json to_json(const ProblemReply& reply) { return ok_reply({{"max_abs_ref", reply.max_abs_reference}}); }

ProblemReply problem_reply_from_json(const json& j) {
  return {j.at("max_abs_ref").get<std::array<double, 2>>()};
}

json to_json(const BaselinesReply& reply) {
  json baselines = json::array();
  for (const auto& b : reply.baselines)
    baselines.push_back({{"provider", std::string(to_string(b.provider))},
                         {"stats", to_json(b.stats)},
                         {"max_diff", number_or_null(b.max_diff)},
                         {"detail", b.detail},
                         {"lt_algo", lt_algo_to_json(b.lt_algo)},
                         {"trace", trace_or_null(b.trace)}});
  return ok_reply({{"baselines", baselines}, {"tolerance", reply.tolerance}});
}

BaselinesReply baselines_reply_from_json(const json& j) {
  BaselinesReply reply;
  for (const auto& b : j.at("baselines"))
    reply.baselines.push_back({parse_provider(b.at("provider").get<std::string>()),
                               timing_stats_from_json(b.at("stats")), number_or_nan(b, "max_diff"),
                               b.value("detail", ""), lt_algo_at(b, "lt_algo"), call_trace_at(b, "trace")});
  reply.tolerance = j.at("tolerance").get<double>();
  return reply;
}

json to_json(const TrialsReply& reply) {
  json trials = json::array();
  for (const auto& trial : reply.trials) {
    json body = {{"status", std::string(to_string(trial.status))},
                 {"max_diff", number_or_null(trial.max_diff)},
                 {"tolerance", number_or_null(trial.tolerance)}};
    if (!trial.reason.empty()) body["reason"] = trial.reason;
    if (trial.status == TrialStatus::Ok) {
      body["stats"] = to_json(trial.stats);
      body["reference_stats"] = to_json(trial.reference_stats);
      body["trace"] = trace_or_null(trial.trace);
    }
    trials.push_back(std::move(body));
  }
  return ok_reply({{"trials", trials}});
}

TrialsReply trials_reply_from_json(const json& j) {
  TrialsReply reply;
  for (const auto& t : j.at("trials")) {
    TrialReply& trial = reply.trials.emplace_back();
    trial.status = parse_trial_status(t.at("status").get<std::string>());
    trial.reason = t.value("reason", "");
    trial.max_diff = number_or_nan(t, "max_diff");
    trial.tolerance = number_or_nan(t, "tolerance");
    if (trial.status == TrialStatus::Ok) {
      trial.stats = timing_stats_from_json(t.at("stats"));
      trial.reference_stats = timing_stats_from_json(t.at("reference_stats"));
      trial.trace = call_trace_at(t, "trace");
    }
  }
  return reply;
}

json to_json(const FinalReply& reply) {
  json finalists = json::array();
  for (const auto& f : reply.finalists) {
    json body = {{"status", std::string(to_string(f.status))}, {"max_diff", number_or_null(f.max_diff)}};
    if (!f.reason.empty()) body["reason"] = f.reason;
    if (f.status == TrialStatus::Ok) body["stats"] = to_json(f.stats);
    finalists.push_back(std::move(body));
  }
  json times = json::object();
  for (const auto& [provider, stats] : reply.times) times[std::string(to_string(provider))] = to_json(stats);
  return ok_reply({{"finalists", finalists}, {"times", times}});
}

FinalReply final_reply_from_json(const json& j) {
  FinalReply reply;
  for (const auto& f : j.at("finalists")) {
    FinalistTiming& finalist = reply.finalists.emplace_back();
    finalist.status = parse_trial_status(f.at("status").get<std::string>());
    finalist.reason = f.value("reason", "");
    finalist.max_diff = number_or_nan(f, "max_diff");
    if (finalist.status == TrialStatus::Ok) finalist.stats = timing_stats_from_json(f.at("stats"));
  }
  for (const auto& [name, stats] : j.at("times").items())
    reply.times[parse_provider(name)] = timing_stats_from_json(stats);
  return reply;
}

json to_json(const ProfileReply& reply) {
  return ok_reply({{"ours", to_json(reply.ours)},
                   {"library", std::string(to_string(reply.library))},
                   {"library_detail", reply.library_detail},
                   {"library_algo", lt_algo_to_json(reply.library_algo)},
                   {"library_counters", to_json(reply.library_counters)}});
}

ProfileReply profile_reply_from_json(const json& j) {
  return {call_counters_from_json(j.at("ours")), parse_provider(j.at("library").get<std::string>()),
          j.at("library_detail").get<std::string>(), lt_algo_at(j, "library_algo"),
          call_counters_from_json(j.at("library_counters"))};
}

json to_json(const FailureReply& reply) {
  return {{"ok", false}, {"error", reply.error}, {"user_error", reply.user_error}, {"sticky", reply.sticky}};
}

FailureReply failure_reply_from_json(const json& j) {
  return {j.value("error", ""), j.value("user_error", false), j.value("sticky", false)};
}

}  // namespace cl2
