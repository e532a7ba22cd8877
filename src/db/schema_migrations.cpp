#include "db/schema_migrations.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <string_view>

#include "core/embedded_files.hpp"
#include "core/errors.hpp"
#include "db/sqlite_statement.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {
namespace {

// Step `version` takes a database from version - 1 to `version` by running the embedded script.
struct SchemaMigration {
  int version;
  std::string_view script_path;
};

constexpr std::array kSchemaMigrations{
    SchemaMigration{1, "db/schema.sql"},
    SchemaMigration{2, "db/migrations/0002_baseline_lt_algo.sql"},
    SchemaMigration{3, "db/migrations/0003_kernel_traces.sql"},
    SchemaMigration{4, "db/migrations/0004_call_counters.sql"},
    SchemaMigration{5, "db/migrations/0005_winner_clocks.sql"},
    SchemaMigration{6, "db/migrations/0006_l2_policy.sql"},
    SchemaMigration{7, "db/migrations/0007_calibrations.sql"},
    SchemaMigration{8, "db/migrations/0008_run_stages.sql"},
};
static_assert(kSchemaMigrations.back().version == kSchemaVersion,
              "the last migration must produce kSchemaVersion");


void apply_pending_migrations(sqlite3* db, const std::string& path) {
  const int current = read_user_version(db);  // again, under the write lock: another process
  if (current > kSchemaVersion) throw_newer_schema(path, current);  // may have migrated meanwhile
  for (const auto& step : kSchemaMigrations) {
    if (step.version <= current) continue;
    exec_sql(db, migration_script(step.version));
    exec_sql(db, fmt::format("PRAGMA user_version = {}", step.version));
  }
  exec_sql(db, fmt::format("PRAGMA application_id = {}", kApplicationId));
}

}  // namespace

std::string_view migration_script(int version) {
  for (const auto& step : kSchemaMigrations) {
    if (step.version != version) continue;
    const auto script = find_embedded_file(step.script_path);
    if (!script)
      throw std::logic_error(fmt::format("schema migration {} is not embedded in this build", step.script_path));
    return *script;
  }
  throw std::logic_error(fmt::format("no schema migration to version {}", version));
}

void throw_newer_schema(const std::string& path, int version, std::string_view path_option) {
  throw UserError(fmt::format(
      "{}: was written by a newer cuda-l2-tune (schema {}, this build reads up to {}); upgrade "
      "cuda-l2-tune or pick another {} path",
      path, version, kSchemaVersion, path_option));
}

int read_user_version(sqlite3* db) {
  Statement query(db, "PRAGMA user_version");
  query.step();
  return query.column_int(0);
}

void migrate_schema(sqlite3* db, const std::string& path) {
  if (read_user_version(db) == kSchemaVersion) return;
  run_in_transaction(db, [&] { apply_pending_migrations(db, path); });
}

}  // namespace cl2
