// Opening the tuning database: every check a user's --db path can fail runs before anything is
// written, on a connection that cannot write, so a wrong path never turns someone's file into a
// WAL database or a half-made tuning database.
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/errors.hpp"
#include "db/schema_migrations.hpp"
#include "db/sqlite_statement.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 5000;
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::size_t kSqliteHeaderBytes = 100;

[[noreturn]] void fail(const std::string& path, std::string_view problem, std::string_view fix) {
  throw UserError(fmt::format("{}: {}; {}", path, problem, fix));
}

// "Permission denied" -> "permission denied", to read as part of our sentence.
std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string describe_errno(int error) { return lowercase_first(std::strerror(error)); }

class Connection {
 public:
  // `name` is the file to name in errors where `filename` is a URI.
  Connection(const std::string& filename, int flags, std::string_view path_option, const std::string& name = {}) {
    const int rc = sqlite3_open_v2(filename.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_close_v2(db_);  // SQLite hands out a handle even when the open fails
      fail(name.empty() ? filename : name,
           fmt::format("cannot open the database ({})", sqlite3_errstr(rc)),
           fmt::format("check the {} path and its permissions", path_option));
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  }
  ~Connection() { sqlite3_close_v2(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  sqlite3* get() const { return db_; }
  sqlite3* release() { return std::exchange(db_, nullptr); }

 private:
  sqlite3* db_ = nullptr;
};

fs::path folder_of(const std::string& path) {
  const fs::path file(path);
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// Where a ReadWrite open will write: the file, and its folder for the -wal and -shm files.
void ensure_writable_location(const std::string& path, bool file_exists) {
  const fs::path folder = folder_of(path);
  std::error_code error;
  const auto folder_status = fs::status(folder, error);
  if (!fs::exists(folder_status)) {
    if (!fs::create_directories(folder, error) && error)
      fail(path, fmt::format("cannot create the database ({})", lowercase_first(error.message())),
           "choose a writable --db path");
  } else if (!fs::is_directory(folder_status)) {
    fail(path, fmt::format("cannot create the database ({} is not a folder)", folder.string()),
         "choose a writable --db path");
  }
  if (::access(folder.c_str(), W_OK) != 0)
    fail(path, fmt::format("cannot create the database ({})", describe_errno(errno)),
         "choose a writable --db path");
  if (file_exists && ::access(path.c_str(), R_OK | W_OK) != 0)
    fail(path, fmt::format("cannot write the database ({})", describe_errno(errno)),
         "choose a writable --db path");
}

// Reads the 100-byte header SQLite files start with; an empty file is a valid empty database.
void check_sqlite_header(const std::string& path, std::string_view path_option) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file)
    fail(path, fmt::format("cannot read the database ({})", describe_errno(errno)),
         fmt::format("check the {} path and its permissions", path_option));
  std::array<char, kSqliteHeaderBytes> header{};
  const std::size_t size = std::fread(header.data(), 1, header.size(), file);
  std::fclose(file);
  if (size == 0) return;
  const std::string_view magic(header.data(), kSqliteMagic.size());
  if (size < kSqliteHeaderBytes || magic != kSqliteMagic)
    fail(path, "is not a SQLite database",
         fmt::format("pass the path of a cuda-l2-tune tuning database to {}", path_option));
}

int query_int(sqlite3* db, const char* sql) {
  Statement query(db, sql);
  query.step();
  return query.column_int(0);
}

// The first problem PRAGMA quick_check finds, as one line ("Page 5: btreeInitPage() returns
// error code 11"), or "" for a sound file.
std::string first_integrity_problem(sqlite3* db) {
  Statement check(db, "PRAGMA quick_check(1)");
  check.step();
  std::string result = check.column_text(0);
  if (result == "ok") return "";
  constexpr std::string_view kDatabaseLabel = "*** in database main ***\n";
  if (result.starts_with(kDatabaseLabel)) result.erase(0, kDatabaseLabel.size());
  std::replace(result.begin(), result.end(), '\n', ' ');
  return result;
}

// A read-only connection that leaves no trace. Even a read-only open of a WAL-format file makes
// -wal and -shm files beside it (and fails where the folder is read-only); opened as immutable it
// makes none. That is safe only while no -wal exists (no writer is active and nothing awaits a
// checkpoint); otherwise the side files exist already and a plain read-only open is the right way
// to see the committed data.
Connection open_without_trace(const std::string& path, std::string_view path_option) {
  if (fs::exists(path + "-wal")) return Connection(path, SQLITE_OPEN_READONLY, path_option);
  std::string uri = "file:";
  for (const char c : path) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) ||
                       std::string_view("/-._~").find(c) != std::string_view::npos;
    uri += plain ? std::string(1, c) : fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  return Connection(uri + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path_option, path);
}

// Checks that the file is ours, sound and not too new, without writing anything; returns its
// schema version (0 for an empty file).
int validate_contents(const std::string& path, std::string_view path_option) {
  const std::string corrupt_fix = fmt::format("restore it from a backup or pick another {} path", path_option);
  check_sqlite_header(path, path_option);
  const Connection connection = open_without_trace(path, path_option);
  sqlite3* db = connection.get();
  try {
    const int application_id = query_int(db, "PRAGMA application_id");
    const int version = read_user_version(db);
    const int tables = query_int(db, "SELECT count(*) FROM sqlite_master");
    const bool empty = application_id == 0 && version == 0 && tables == 0;
    if (application_id != kApplicationId && !empty)
      fail(path,
           fmt::format("is a SQLite database of another program (application_id 0x{:08X}, {} "
                       "tables), not a tuning database",
                       static_cast<std::uint32_t>(application_id), tables),
           fmt::format("pick another {} path", path_option));
    if (version > kSchemaVersion) throw_newer_schema(path, version, path_option);
    if (const auto problem = first_integrity_problem(db); !problem.empty())
      fail(path, fmt::format("is corrupt ({})", problem), corrupt_fix);
    return version;
  } catch (const SqliteError& error) {
    if (error.code != SQLITE_CORRUPT && error.code != SQLITE_NOTADB) throw;
    fail(path, fmt::format("is corrupt ({})", sqlite3_errstr(error.code)), corrupt_fix);
  }
}

// Settings that hold for the connection only; none writes the file.
void configure_connection(sqlite3* db) { exec_sql(db, "PRAGMA foreign_keys = ON"); }

// A database of an older schema, for reading: copied into memory and migrated there, so that
// `show` and `export` read what an older build wrote while the file stays as it was (the next
// `tune` upgrades the file itself).
sqlite3* open_migrated_copy(const std::string& path, std::string_view path_option) {
  const Connection file = open_without_trace(path, path_option);
  Connection copy(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path_option, path);
  sqlite3_backup* backup = sqlite3_backup_init(copy.get(), "main", file.get(), "main");
  if (!backup) throw_sqlite_error(copy.get(), sqlite3_errcode(copy.get()), "copying the database into memory");
  sqlite3_backup_step(backup, -1);
  if (const int rc = sqlite3_backup_finish(backup); rc != SQLITE_OK)
    throw_sqlite_error(copy.get(), rc, "copying the database into memory");
  configure_connection(copy.get());
  migrate_schema(copy.get(), path);
  exec_sql(copy.get(), "PRAGMA query_only = ON");
  return copy.release();
}

// Both openers hand over the validated, configured handle; the caller owns it.
sqlite3* open_read_only(const std::string& path, bool migrate_copy, std::string_view path_option) {
  const int version = validate_contents(path, path_option);
  if (version < kSchemaVersion && (version == 0 || !migrate_copy))
    fail(path,
         fmt::format("holds schema {}, this build reads schema {}", version, kSchemaVersion),
         fmt::format("run `cuda-l2-tune tune --db {}` to create or upgrade it", path));
  if (version < kSchemaVersion) return open_migrated_copy(path, path_option);
  // Where we may write, a read-write connection kept from writing by query_only: as the last
  // connection to close, it removes the -wal and -shm files that opening a WAL database makes,
  // where a read-only one would leave them behind after every `show`. Elsewhere (a shared,
  // read-only copy) no writer can be at work either, so reading it as immutable is safe.
  const bool writable = ::access(path.c_str(), W_OK) == 0 &&
                        ::access(folder_of(path).c_str(), W_OK) == 0;
  Connection connection = writable ? Connection(path, SQLITE_OPEN_READWRITE, path_option)
                                   : open_without_trace(path, path_option);
  configure_connection(connection.get());
  exec_sql(connection.get(), "PRAGMA query_only = ON");
  return connection.release();
}

// Only the CLI writes databases, named by --db.
sqlite3* open_read_write(const std::string& path, bool exists) {
  constexpr std::string_view kOption = "--db";
  ensure_writable_location(path, exists);
  if (exists) validate_contents(path, kOption);
  Connection connection(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, kOption);
  sqlite3* db = connection.get();
  if (sqlite3_db_readonly(db, "main") == 1)
    fail(path, "cannot write the database (read-only file)", "choose a writable --db path");
  configure_connection(db);
  // journal_mode answers with the mode it set (a file system without shared memory keeps the
  // rollback journal, which works too), so it is stepped rather than run.
  Statement(db, "PRAGMA journal_mode = WAL").step();
  exec_sql(db, "PRAGMA synchronous = NORMAL");
  migrate_schema(db, path);
  return connection.release();
}

}  // namespace

std::unique_ptr<TuningDb> TuningDb::open(const std::string& path, DbMode mode, std::string_view path_option) {
  std::error_code error;
  const auto status = fs::status(path, error);
  const bool exists = fs::exists(status);
  if (exists && fs::is_directory(status))
    fail(path, "is a folder, not a database file", fmt::format("pass a file path to {}", path_option));
  if (mode != DbMode::ReadWrite && !exists)
    fail(path, "no such tuning database",
         fmt::format("run `cuda-l2-tune tune` first or pass {} an existing one", path_option));
  sqlite3* handle = mode == DbMode::ReadWrite ? open_read_write(path, exists)
                                              : open_read_only(path, mode == DbMode::ReadOnly, path_option);
  return std::unique_ptr<TuningDb>(new TuningDb(handle, path));
}

TuningDb::TuningDb(sqlite3* handle, std::string path) : db_(handle), path_(std::move(path)) {}

TuningDb::~TuningDb() { sqlite3_close_v2(db_); }

int TuningDb::schema_version() const { return read_user_version(db_); }

void TuningDb::transaction(const std::function<void()>& body) { run_in_transaction(db_, body); }

}  // namespace cl2
