#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "gpu/device_query.hpp"
#include "report/text_table.hpp"
#include "search/calibration_fit.hpp"
#include "tune/calibration_samples.hpp"

namespace cl2 {

namespace {

struct CalibrateOptions {
  std::vector<std::string> dbs = {"db/tuning.sqlite"};
  std::string family = "sm90", device;
  std::vector<std::string> space_files;
  double ridge = 1.0;
  std::size_t first = kDefaultMaxCandidates;
  bool store = false;
};

// Every database's verified trials of `family`, by device name (the fingerprint would split one
// GPU by driver version). Each database is a run of its own: its shapes' variants are compared
// with each other, not with another database's.
std::map<std::string, std::pair<DeviceInfo, std::vector<CalibrationSample>>> samples_by_device(
    const CalibrateOptions& o, const FamilySpec& family) {
  std::map<std::string, std::pair<DeviceInfo, std::vector<CalibrationSample>>> by_device;
  for (std::size_t i = 0; i < o.dbs.size(); ++i) {
    auto db = TuningDb::open(o.dbs[i], DbMode::ReadOnly);
    for (const auto& [device_id, device] : db->devices()) {
      if (!o.device.empty() && device.name.find(o.device) == std::string::npos) continue;
      if (!family.supports_cc(device.cc())) continue;
      auto samples = calibration_samples(*db, device_id, device_limits(device), family, std::to_string(i));
      auto& entry = by_device.try_emplace(device.name, device, std::vector<CalibrationSample>{}).first->second;
      entry.second.insert(entry.second.end(), samples.begin(), samples.end());
    }
  }
  return by_device;
}

std::string quality_row(const std::string& what, const RankingQuality& q) {
  return fmt::format("  {:<56} {:>8.2f} {:>13.3f}x {:>10.3f}x {:>5}/{}\n", what, q.mean_spearman, q.top1_regret,
                     q.first_regret, q.first_within_2pct, q.groups);
}

// The problems a model's first N missed, each with the place of its fastest variant in that model's
// order (where to look when a rule is added); a group is "<database index> <problem>".
std::string missed_row(const std::string& what, const RankingQuality& q, std::size_t databases) {
  if (q.missed.empty()) return "";
  std::string list;
  for (const auto& [group, place] : q.missed) {
    const std::size_t space = group.find(' ');
    const std::string problem = group.substr(space + 1);
    const std::string where =
        databases > 1 ? fmt::format(" in --db {}", std::stoul(group.substr(0, space)) + 1) : std::string();
    list += fmt::format("{}{}{} ({})", list.empty() ? "" : ", ", problem, where, place);
  }
  return fmt::format("  missed {}: {}\n", what, list);
}

// The fit for one device (log factors, in the family's order) next to the space file's factors, how
// well each ranks the measured variants, and the factors in the space file's syntax.
std::string render_calibration(const FamilySpec& family, const DeviceInfo& device,
                               const std::vector<CalibrationSample>& samples, const std::vector<double>& fitted,
                               double ridge, std::size_t first, std::size_t databases) {
  const std::size_t features = family.calibration.size();
  std::vector<double> current;
  for (const auto& f : family.calibration) current.push_back(std::log(f.factor));
  const RankingQuality all = ranking_quality(samples, fitted, first);
  std::string out = fmt::format("{} on {} (sm_{}): {} verified trials, {} shapes (per database) with 3 or more\n\n",
                                family.name, device.name, device.cc(), samples.size(), all.groups);
  TextTable table({{"factor applies where", Align::Left}, {"trials"}, {"in the space file"}, {"fitted"}});
  for (std::size_t f = 0; f < features; ++f) {
    std::size_t count = 0;
    for (const auto& s : samples) count += s.features[f];
    table.add_row({family.calibration[f].text, std::to_string(count), format_fixed(family.calibration[f].factor, 3),
                   format_fixed(std::exp(fitted[f]), 3)});
  }
  out += table.plain(2);
  out += fmt::format("\n  how the model ranks each shape's measured variants{:>14} {:>14} {:>11} {:>11}\n",
                     "Spearman", "top-1 regret", fmt::format("first {}", first), "within 2%");
  const RankingQuality in_file = ranking_quality(samples, current, first);
  const RankingQuality held_out = cross_validated_quality(samples, features, ridge, first);
  out += quality_row("uncalibrated (cost_us alone)",
                     ranking_quality(samples, std::vector<double>(features, 0.0), first));
  out += quality_row("with the space file's factors", in_file);
  out += quality_row("with the fitted factors", all);
  out += quality_row("fitted on half the shapes, judged on the others", held_out);
  out += fmt::format("\n  Not within 2% in the first {} (the place of the fastest in the model's order):\n", first);
  out += missed_row("with the space file's factors", in_file, databases);
  out += missed_row("with the fitted factors", all, databases);
  out += missed_row("fitted on half, judged on the others", held_out, databases);
  out += fmt::format("\n  (top-1 regret: the model's first choice's time over the best measured, geomean over shapes;\n"
                     "  first {0}: the best of the model's first {0} over the best measured, and the shapes where\n"
                     "  that is within 2%, as a plan of {0} candidates would find them)\n", first);
  const double scale = std::exp(fit_log_scale(samples, fitted));
  out += fmt::format("  Scale (measured time over the calibrated estimate, geomean over the trials): {:.3f}, in "
                     "the space file {}\n",
                     scale, family.calibration_scale ? format_fixed(*family.calibration_scale, 3) : "none");
  out += "  The fitted calibration in the space file's syntax (\"calibration\": {...}):\n";
  out += fmt::format("    \"scale\": {:.3f},\n    \"factors\": [", scale);
  for (std::size_t f = 0; f < features; ++f)
    out += fmt::format("\n      [\"{}\", {:.3f}]{}", family.calibration[f].text, std::exp(fitted[f]),
                       f + 1 < features ? "," : "");
  out += features > 0 ? "\n    ]\n" : "]\n";
  return out;
}

}  // namespace

CommandRunner add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit a family's cost-model calibration (the space file's \"calibration\": factors for its rules, "
      "which rank a shape's variants, and a scale, which puts families' costs in one unit) to the "
      "verified trials in a database, per device, and report how well the model ranks each shape's "
      "measured variants with and without them");
  cmd->add_option("--db", o->dbs, "Tuning database holding the trials; repeatable (each database's shapes are "
                                  "compared within it)")
      ->capture_default_str();
  cmd->add_option("--family", o->family, "The family to calibrate")->capture_default_str();
  cmd->add_option("--space-file", o->space_files, "Space file of a family tuned with --space-file; repeatable");
  cmd->add_option("--device", o->device, "Only devices whose name contains this text");
  cmd->add_flag("--store", o->store,
                "Keep the fit in the database (per GPU model and family): tune then plans with it on that GPU in "
                "place of the space file's factors, and show --model judges it; needs exactly one --db");
  cmd->add_option("--ridge", o->ridge,
                  "Weight that pulls log factors towards 0 (factor 1) where the trials hardly constrain them")
      ->capture_default_str();
  cmd->add_option("--first", o->first,
                  "Judge the model by its first N of each shape's measured variants (default tune's "
                  "--max-candidates; a race times 4x --max-candidates)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t(1), std::size_t(100000)));
  return [o] {
    if (!(o->ridge >= 0)) throw UserError(fmt::format("--ridge {}: must be >= 0", o->ridge));
    std::vector<FamilySpec> extra;
    for (const auto& path : o->space_files) extra.push_back(load_family_file(path));
    const FamilySpec& family = *select_families({o->family}, extra).front();
    if (o->store && o->dbs.size() != 1)
      throw UserError("calibrate --store: give one --db, the database whose trials are fitted and that keeps the fit");
    std::string text;
    std::vector<CalibrationRecord> fits;
    for (const auto& [name, entry] : samples_by_device(*o, family)) {
      const auto& [device, samples] = entry;
      if (samples.empty()) continue;
      const auto fitted = fit_log_factors(samples, family.calibration.size(), o->ridge);
      text += render_calibration(family, device, samples, fitted, o->ridge, o->first, o->dbs.size()) + "\n";
      CalibrationRecord fit{device.name, family.name, {}, std::exp(fit_log_scale(samples, fitted)), int(samples.size()),
                            {}};
      for (std::size_t f = 0; f < fitted.size(); ++f) fit.factors.emplace_back(family.calibration[f].text, std::exp(fitted[f]));
      fits.push_back(std::move(fit));
    }
    if (text.empty())
      throw UserError(fmt::format("--db: no verified {} trials{} of this version of the family (trials of kernels "
                                  "tuned before it gained a parameter do not count); tune some shapes first",
                                  family.name, o->device.empty() ? "" : " on a device matching --device " + o->device));
    if (o->store) {
      auto db = TuningDb::open(o->dbs.front(), DbMode::ReadWrite);
      db->transaction([&] {
        for (const auto& fit : fits) db->put_calibration(fit);
      });
      text += fmt::format("Stored in {}: tune plans with these factors on {} from now on (a calibrate --store "
                          "replaces them).\n",
                          o->dbs.front(), fits.size() == 1 ? fits.front().device_name : "these GPUs");
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  };
}

}  // namespace cl2
