// TuningDb's calibrations table (schema 7): a family's cost-model factors fitted to this
// database's trials, per GPU model.
#include <nlohmann/json.hpp>

#include <limits>

#include "db/sqlite_statement.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

void TuningDb::put_calibration(const CalibrationRecord& c) {
  Statement upsert(db_, "INSERT INTO calibrations (device_name, family, factors, scale, trials) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (device_name, family) DO UPDATE SET factors = excluded.factors, "
                        "scale = excluded.scale, trials = excluded.trials, fitted_at = excluded.fitted_at");
  upsert.bind_all(c.device_name, c.family, nlohmann::json(c.factors).dump(),
                  c.scale.value_or(std::numeric_limits<double>::quiet_NaN()), c.trials);
  upsert.run();
}

std::optional<CalibrationRecord> TuningDb::calibration(const std::string& device_name, const std::string& family) const {
  Statement query(db_, "SELECT factors, scale, trials, fitted_at FROM calibrations WHERE device_name = ? AND family = ?");
  query.bind_all(device_name, family);
  if (!query.step()) return std::nullopt;
  CalibrationRecord c{device_name, family, {}, std::nullopt, query.column_int(2), query.column_text(3)};
  c.factors = nlohmann::json::parse(query.column_text(0)).get<decltype(c.factors)>();
  if (!query.column_is_null(1)) c.scale = query.column_double(1);
  return c;
}

}  // namespace cl2
