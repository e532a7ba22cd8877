// TuningDb's runs table: one row per invocation of a measuring command, and (schema 8) where a
// tuning run's time went, by stage.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "db/problem_columns.hpp"
#include "db/sqlite_statement.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

std::int64_t TuningDb::begin_run(const std::string& command_line, const std::string& shapes_file) {
  Statement insert(db_, "INSERT INTO runs (command_line, shapes_file) VALUES (?, ?) RETURNING id");
  return returned_id(insert.bind_all(command_line, shapes_file));
}

void TuningDb::finish_run(std::int64_t run_id, const std::string& status) {
  Statement(db_, fmt::format("UPDATE runs SET finished_at = {}, status = ? WHERE id = ?", kNowUtc))
      .bind_all(status, run_id)
      .run();
}

void TuningDb::set_run_stages(std::int64_t run_id, const std::vector<RunStageTime>& stages) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : stages) list.push_back({{"stage", s.stage}, {"seconds", s.seconds}, {"count", s.count}});
  Statement(db_, "UPDATE runs SET stage_seconds = ? WHERE id = ?").bind_all(list.dump(), run_id).run();
}

std::vector<RunRecord> TuningDb::runs(std::size_t latest) const {
  Statement query(db_,
                  "SELECT id, started_at, COALESCE(finished_at, ''), "
                  "strftime('%s', finished_at) - strftime('%s', started_at), command_line, shapes_file, status, "
                  "stage_seconds FROM runs ORDER BY id DESC LIMIT ?");
  query.bind_all(std::int64_t(latest));
  std::vector<RunRecord> out;
  while (query.step()) {
    RunRecord r;
    r.id = query.column_int64(0);
    r.started_at = query.column_text(1);
    r.finished_at = query.column_text(2);
    if (!query.column_is_null(3)) r.seconds = query.column_double(3);
    r.command_line = query.column_text(4);
    r.shapes_file = query.column_text(5);
    r.status = query.column_text(6);
    if (!query.column_is_null(7)) {
      for (const auto& stage : nlohmann::json::parse(query.column_text(7)))
        r.stages.push_back({stage.at("stage").get<std::string>(), stage.at("seconds").get<double>(),
                            stage.at("count").get<std::int64_t>()});
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cl2
