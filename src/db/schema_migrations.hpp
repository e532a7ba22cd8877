#pragma once
// Versions of the tuning database's schema and the steps between them.
//
// How to change the schema: never edit db/schema.sql (version 1) or a shipped migration. Add
// db/migrations/000N_<what>.sql (CMake embeds it), append {N, "db/migrations/000N_<what>.sql"}
// to kSchemaMigrations in schema_migrations.cpp and raise kSchemaVersion in tuning_db.hpp to N.
// Opening a database in ReadWrite mode applies every step above its user_version, in order,
// inside one transaction, and sets user_version after each; a ReadOnly open of an older file asks
// the user to upgrade it with a write-mode command first.
#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;

namespace cl2 {

inline constexpr std::int32_t kApplicationId = 0x434C3254;  // "CL2T" in PRAGMA application_id

// The one-line UserError for a database written by a newer build; `path_option` is where the
// path came from, as the fix names it (an option such as --db, or a function of the C API).
[[noreturn]] void throw_newer_schema(const std::string& path, int version, std::string_view path_option = "--db");

// Brings a validated database up to kSchemaVersion; a no-op (and no write lock) when it is there.
void migrate_schema(sqlite3* db, const std::string& path);

int read_user_version(sqlite3* db);

// The script that takes a database from `version` - 1 to `version` (1: db/schema.sql on an empty
// file); the tests build databases of older versions with it. Throws std::logic_error for a
// version without one.
std::string_view migration_script(int version);

}  // namespace cl2
