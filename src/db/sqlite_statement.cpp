#include "db/sqlite_statement.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/errors.hpp"

namespace cl2 {

void throw_sqlite_error(sqlite3* db, int rc, std::string_view context) {
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  const std::string path = file && *file ? file : "tuning database";
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw UserError(fmt::format(
          "{}: locked by another process; wait for the other cuda-l2-tune to finish or pick "
          "another --db", path));
    case SQLITE_FULL:
      throw UserError(fmt::format("{}: disk full; free some space or pick another --db", path));
    case SQLITE_READONLY:
      throw UserError(
          fmt::format("{}: cannot write the database (read-only); choose a writable --db path",
                      path));
    default:
      throw SqliteError(fmt::format("{}: {}: {} (SQLite error {})", path, context,
                                    db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc),
                        rc);
  }
}

void exec_sql(sqlite3* db, std::string_view sql) {
  const std::string text(sql);  // sqlite3_exec needs a terminated string
  char* message = nullptr;
  const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // sqlite3_errmsg() below says the same
  if (rc != SQLITE_OK) throw_sqlite_error(db, rc, fmt::format("executing `{:.60}`", text));
}

void run_in_transaction(sqlite3* db, const std::function<void()>& body) {
  const bool nested = !sqlite3_get_autocommit(db);
  exec_sql(db, nested ? "SAVEPOINT cl2_nested" : "BEGIN IMMEDIATE");
  try {
    body();
  } catch (...) {
    // SQLite may have rolled back on its own already (SQLITE_FULL, ...): then there is nothing
    // left to undo, and the original exception is the one worth reporting.
    if (!sqlite3_get_autocommit(db))
      sqlite3_exec(db, nested ? "ROLLBACK TO cl2_nested; RELEASE cl2_nested" : "ROLLBACK", nullptr,
                   nullptr, nullptr);
    throw;
  }
  exec_sql(db, nested ? "RELEASE cl2_nested" : "COMMIT");
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite_error(db, rc, fmt::format("preparing `{:.60}`", sql));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::check_bind(int rc, int index) {
  if (rc != SQLITE_OK)
    throw_sqlite_error(db_, rc, fmt::format("binding parameter {} of `{:.60}`", index,
                                            sqlite3_sql(stmt_)));
}

void Statement::bind_int64(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
}

void Statement::bind_double(int index, double value) {
  check_bind(std::isnan(value) ? sqlite3_bind_null(stmt_, index)
                               : sqlite3_bind_double(stmt_, index, value),
             index);
}

void Statement::bind_null(int index) { check_bind(sqlite3_bind_null(stmt_, index), index); }

void Statement::bind_text(int index, std::string_view value) {
  check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                               SQLITE_TRANSIENT),
             index);
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_error(db_, rc, fmt::format("running `{:.60}`", sqlite3_sql(stmt_)));
}

void Statement::run() {
  if (step())
    throw std::logic_error(fmt::format("`{:.60}` returned rows where none were expected",
                                       sqlite3_sql(stmt_)));
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

int Statement::column_int(int column) const { return sqlite3_column_int(stmt_, column); }

double Statement::column_double(int column) const {
  if (column_is_null(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::column_text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!text) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t returned_id(Statement& statement) {
  if (!statement.step()) throw std::logic_error("INSERT ... RETURNING id returned no row");
  const std::int64_t id = statement.column_int64(0);
  statement.run();
  return id;
}

}  // namespace cl2
