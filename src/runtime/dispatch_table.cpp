#include "runtime/dispatch_table.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "core/json_numbers.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

std::vector<DispatchTable> dispatch_tables(const std::vector<WinnerRow>& rows) {
  std::vector<DispatchTable> tables;
  // Per table, the index of each (shape, layout, accum) entry, to let a warm row replace another.
  std::vector<std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, Layout, Accum>, std::size_t>> index;
  for (const WinnerRow& row : rows) {
    if (tables.empty() || !(tables.back().device == row.device)) {
      tables.push_back({row.device, {}, {}});
      index.emplace_back();
    }
    const Problem& p = row.winner.problem;
    DispatchEntry entry{p,
                        KernelConfig::from_json(row.kernel.config_json),
                        row.kernel.source_hash,
                        row.kernel.arch,
                        row.winner.time_us,
                        row.winner.cublaslt_autotune_us,
                        row.cublaslt_autotune_algo};
    const auto key = std::make_tuple(p.shape.m, p.shape.n, p.shape.k, p.layout, p.accum);
    auto [at, added] = index.back().emplace(key, tables.back().entries.size());
    if (added) tables.back().entries.push_back(std::move(entry));
    else if (p.l2 == L2Policy::Warm) tables.back().entries[at->second] = std::move(entry);
  }
  return tables;
}

std::vector<DispatchTable> dispatch_tables(const TuningDb& db, const std::string& device_filter) {
  std::vector<DispatchTable> tables = dispatch_tables(db.winner_rows(device_filter));
  for (DispatchTable& table : tables)
    for (const auto& [name, family] : builtin_families())
      if (auto fit = db.calibration(table.device.name, name)) table.calibrations.push_back(std::move(*fit));
  return tables;
}

nlohmann::json table_to_json(const DispatchTable& table) {
  nlohmann::json entries = nlohmann::json::array();
  for (const DispatchEntry& e : table.entries)
    entries.push_back({{"m", e.problem.shape.m},
                       {"n", e.problem.shape.n},
                       {"k", e.problem.shape.k},
                       {"layout", to_string(e.problem.layout)},
                       {"accum", to_string(e.problem.accum)},
                       {"l2", to_string(e.problem.l2)},
                       {"config", nlohmann::json::parse(e.config.to_json())},
                       {"source_hash", e.source_hash},
                       {"arch", e.arch},
                       {"ours_us", number_or_null(e.ours_us)},
                       {"library_us", number_or_null(e.library_us)},
                       {"library_algo", lt_algo_to_json(e.library_algo)}});
  nlohmann::json calibrations = nlohmann::json::array();
  for (const CalibrationRecord& c : table.calibrations)
    calibrations.push_back({{"family", c.family},
                            {"factors", c.factors},
                            {"scale", number_or_null(c.scale.value_or(kNotMeasured))},
                            {"trials", c.trials},
                            {"fitted_at", c.fitted_at}});
  return {{"device", table.device}, {"entries", std::move(entries)}, {"calibrations", std::move(calibrations)}};
}

DispatchTable table_from_json(const nlohmann::json& json) {
  DispatchTable table;
  table.device = json.at("device").get<DeviceInfo>();
  for (const nlohmann::json& e : json.at("entries")) {
    DispatchEntry entry;
    entry.problem.shape = {e.at("m").get<std::int64_t>(), e.at("n").get<std::int64_t>(), e.at("k").get<std::int64_t>()};
    entry.problem.layout = parse_layout(e.at("layout").get<std::string>(), "layout");
    entry.problem.accum = parse_accum(e.at("accum").get<std::string>(), "accum");
    entry.problem.l2 = parse_l2_policy(e.at("l2").get<std::string>(), "l2");
    entry.config = KernelConfig::from_json(e.at("config").dump());
    entry.source_hash = e.at("source_hash").get<std::string>();
    entry.arch = e.at("arch").get<std::string>();
    entry.ours_us = number_or_nan(e, "ours_us");
    entry.library_us = number_or_nan(e, "library_us");
    entry.library_algo = lt_algo_at(e, "library_algo");
    table.entries.push_back(std::move(entry));
  }
  for (const nlohmann::json& c : json.value("calibrations", nlohmann::json::array())) {
    CalibrationRecord fit{table.device.name, c.at("family").get<std::string>(),
                          c.at("factors").get<std::vector<std::pair<std::string, double>>>(), std::nullopt,
                          c.at("trials").get<int>(), c.at("fitted_at").get<std::string>()};
    if (const double scale = number_or_nan(c, "scale"); !std::isnan(scale)) fit.scale = scale;
    table.calibrations.push_back(std::move(fit));
  }
  return table;
}

}  // namespace cl2
