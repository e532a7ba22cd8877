#include "report/best_kernel_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/json_numbers.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

namespace {

using nlohmann::json;

WinnerRow parse_kernel(const json& k, const DeviceInfo& device) {
  WinnerRow row;
  row.device = device;
  WinnerRecord& w = row.winner;
  w.problem.shape = {k.at("m").get<std::int64_t>(), k.at("n").get<std::int64_t>(), k.at("k").get<std::int64_t>()};
  w.problem.layout = parse_layout(k.at("layout").get<std::string>(), "layout");
  w.problem.accum = parse_accum(k.at("accum").get<std::string>(), "accum");
  // Rows tuned warm carry no "l2" (nor do exports written before L2 policies).
  w.problem.l2 = parse_l2_policy(k.value("l2", std::string(to_string(L2Policy::Warm))), "l2");
  w.time_us = number_or_nan(k, "time_us");
  w.spread_pct = number_or_nan(k, "spread_pct");
  w.max_diff = number_or_nan(k, "max_diff");
  const json& baselines = k.at("baselines_us");
  auto baseline_us = [&](Provider provider) { return number_or_nan(baselines, std::string(to_string(provider))); };
  w.cublas_nn_us = baseline_us(Provider::CublasNn);
  w.cublas_tn_us = baseline_us(Provider::CublasTn);
  w.cublaslt_heuristic_us = baseline_us(Provider::CublasltHeuristic);
  w.cublaslt_autotune_us = baseline_us(Provider::CublasltAutotune);
  w.measured_at = k.value("measured_at", "");
  // Exports written before clocks were sampled (or without NVML) have no "clocks_measured".
  if (const auto clocks = k.find("clocks_measured"); clocks != k.end() && clocks->is_object()) {
    w.sm_clock_mhz = number_or_nan(*clocks, "sm_mhz");
    w.throttled_rounds = clocks->value("throttled_rounds_discarded", 0);
  }
  // Exports written before algorithms were recorded have no "cublaslt_algos".
  const json no_algos = json::object();
  const auto algos = k.find("cublaslt_algos");
  const json& lt = algos != k.end() && algos->is_object() ? *algos : no_algos;
  row.cublaslt_heuristic_algo = lt_algo_at(lt, std::string(to_string(Provider::CublasltHeuristic)));
  row.cublaslt_autotune_algo = lt_algo_at(lt, std::string(to_string(Provider::CublasltAutotune)));
  // And before calls were traced, no "baseline_kernels".
  if (const auto kernels = k.find("baseline_kernels"); kernels != k.end() && kernels->is_object())
    for (const Provider provider : kBaselineProviders)
      if (const auto names = kernels->find(std::string(to_string(provider))); names != kernels->end())
        row.library_kernels[provider] = names->get<std::vector<std::string>>();
  row.kernel.family = k.at("family").get<std::string>();
  row.kernel.config_json = k.at("config").dump();
  row.kernel.source_hash = k.at("source_hash").get<std::string>();
  row.kernel.arch = k.value("arch", "");
  row.kernel.registers = k.value("registers", -1);
  return row;
}

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof(header));
  return in.gcount() == sizeof(header) && std::string(header, sizeof(header)) == std::string("SQLite format 3\0", 16);
}

}  // namespace

std::vector<WinnerRow> parse_export_json(const std::string& text, const std::string& source) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("{}: malformed JSON at byte {}; pass a tuning database or a file written "
                                "by `cuda-l2-tune export --format json`",
                                source, e.byte));
  }
  if (!document.is_object() || document.value("format", "") != "cuda-l2-tune/best-kernels")
    throw UserError(fmt::format("{}: not a best-kernel table (no \"format\": \"cuda-l2-tune/best-kernels\"); "
                                "pass a tuning database or a file written by `cuda-l2-tune export --format json`",
                                source));
  if (document.value("version", 0) != 1)
    throw UserError(fmt::format("{}: best-kernel table version {}, this build reads version 1; use the "
                                "cuda-l2-tune that wrote it",
                                source, document.value("version", 0)));
  std::vector<WinnerRow> rows;
  try {
    for (const auto& section : document.at("devices")) {
      const DeviceInfo device = section.at("device").get<DeviceInfo>();
      for (const auto& kernel : section.at("kernels")) rows.push_back(parse_kernel(kernel, device));
    }
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: a best-kernel table with a missing or malformed entry ({}); export it "
                                "again with `cuda-l2-tune export --format json`",
                                source, e.what()));
  }
  return rows;
}

std::vector<WinnerRow> read_best_kernel_table(const std::string& path) {
  if (is_sqlite_file(path)) return TuningDb::open(path, DbMode::ReadOnly)->winner_rows();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot read the file; check the path", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_export_json(text.str(), path);
}

}  // namespace cl2
