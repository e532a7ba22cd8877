#pragma once
// A thin RAII layer over the SQLite C API for the tuning database: prepared statements with
// positional binding and typed column reads, and a checked exec for scripts. NaN doubles are bound
// as NULL and NULL reads back as NaN, which is how the database stores "not measured".
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

struct sqlite3;
struct sqlite3_stmt;

namespace cl2 {

// A failed SQLite call that is not the user's to fix; `code` is the SQLite result code, so callers
// can tell a corrupt file (SQLITE_CORRUPT, SQLITE_NOTADB) from other failures.
struct SqliteError : std::runtime_error {
  SqliteError(const std::string& message, int code) : std::runtime_error(message), code(code) {}
  int code;
};

// Throws for a failed SQLite call. Failures a user can cause and fix (another process holds the
// lock past the busy timeout, a full disk, a read-only file) are UserErrors naming the database;
// anything else is a SqliteError (a bug, a corrupt file or a broken environment).
[[noreturn]] void throw_sqlite_error(sqlite3* db, int rc, std::string_view context);

// Runs one or more SQL statements that return no rows (schema scripts, BEGIN, PRAGMA writes).
void exec_sql(sqlite3* db, std::string_view sql);

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT (the write lock is taken up front, so two writers
// wait on the busy timeout instead of failing mid-way) and rolls back and rethrows if it throws.
// Called inside an open transaction, it runs `body` in a savepoint of that one, so an inner
// failure undoes only the inner writes and the outer transaction decides the rest.
void run_in_transaction(sqlite3* db, const std::function<void()>& body);

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds the arguments to parameters first, first + 1, ... in order: integers (and bool),
  // doubles (NaN as NULL), std::nullopt (NULL) and anything convertible to std::string_view.
  template <typename... Args>
  Statement& bind_from(int first, const Args&... args) {
    int index = first;
    (bind_value(index++, args), ...);
    return *this;
  }
  template <typename... Args>
  Statement& bind_all(const Args&... args) {
    return bind_from(1, args...);
  }

  bool step();  // true while a row is available
  void run();   // steps a statement that must return no rows

  bool column_is_null(int column) const;
  std::int64_t column_int64(int column) const;
  int column_int(int column) const;
  double column_double(int column) const;  // NULL -> NaN
  std::string column_text(int column) const;  // NULL -> ""

 private:
  template <typename T>
  void bind_value(int index, const T& value) {
    if constexpr (std::is_same_v<T, double>)
      bind_double(index, value);
    else if constexpr (std::is_same_v<T, std::nullopt_t>)
      bind_null(index);
    else if constexpr (std::is_integral_v<T>)
      bind_int64(index, static_cast<std::int64_t>(value));
    else
      bind_text(index, std::string_view(value));
  }
  void bind_int64(int index, std::int64_t value);
  void bind_double(int index, double value);
  void bind_text(int index, std::string_view value);
  void bind_null(int index);
  void check_bind(int rc, int index);

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Steps an INSERT ... RETURNING id to completion, so that its commit errors surface here.
std::int64_t returned_id(Statement& statement);

}  // namespace cl2
