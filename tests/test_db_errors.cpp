// Every bad --db a user can pass ends in one UserError line naming the path, and leaves the file
// exactly as it was (no WAL conversion, no schema, no side files).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

namespace fs = std::filesystem;

// Opens `path` in `mode`, expecting a one-line UserError that names the path and says `what`.
void expect_user_error(const std::string& path, DbMode mode, const std::string& what) {
  try {
    TuningDb::open(path, mode);
    ADD_FAILURE() << "opening " << path << " succeeded";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Both modes fail on the file and leave it, and its folder, untouched.
void expect_rejected_unchanged(const TempDir& dir, const std::string& path,
                               const std::string& what) {
  const std::string before = read_bytes(path);
  for (const DbMode mode : {DbMode::ReadWrite, DbMode::ReadOnly}) {
    expect_user_error(path, mode, what);
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_FALSE(fs::exists(path + "-wal"));
    EXPECT_FALSE(fs::exists(path + "-shm"));
    EXPECT_FALSE(fs::exists(path + "-journal"));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// A database written with plain SQLite, as another program (or a newer build) would.
void write_with_sqlite(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(db);
}

// A real tuning database of several pages, closed (so checkpointed into one file).
void write_tuning_database(const std::string& path) {
  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  const std::int64_t run = db->begin_run("tune", "");
  const std::int64_t device = db->upsert_device(test_device());
  db->transaction([&] {
    for (int bm = 1; bm <= 300; ++bm) {
      KernelRecord kernel = test_kernel(bm);
      kernel.compile_log = std::string(200, 'w');
      const std::int64_t id = db->upsert_kernel(kernel);
      db->insert_trial(ok_trial(run, device, id, test_problem(128, 128, 128), bm));
    }
  });
}

}  // namespace

TEST(DbErrors, TextFileIsNotADatabase) {
  TempDir dir;
  const std::string path = dir.file("notes.sqlite");
  write_bytes(path, "M,N,K\n4096,4096,4096\nthis is a shapes file, not a database\n");
  expect_rejected_unchanged(dir, path, "is not a SQLite database");
}

TEST(DbErrors, RandomBytesAreNotADatabase) {
  TempDir dir;
  const std::string path = dir.file("random.sqlite");
  std::mt19937 random(7);
  std::string bytes(8192, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  write_bytes(path, bytes);
  expect_rejected_unchanged(dir, path, "is not a SQLite database");
}

TEST(DbErrors, TruncatedDatabaseIsCorrupt) {
  TempDir dir;
  const std::string path = dir.file("truncated.sqlite");
  write_tuning_database(path);
  const std::string whole = read_bytes(path);
  ASSERT_GT(whole.size(), 16u * 4096u);
  write_bytes(path, whole.substr(0, whole.size() / 2));
  expect_rejected_unchanged(dir, path, "is corrupt");
}

TEST(DbErrors, DamagedPageIsCorrupt) {
  TempDir dir;
  const std::string path = dir.file("damaged.sqlite");
  write_tuning_database(path);
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 8u * 4096u);
  for (std::size_t i = 4 * 4096; i < 6 * 4096; ++i) bytes[i] = static_cast<char>(0xA5);
  write_bytes(path, bytes);
  expect_rejected_unchanged(dir, path, "is corrupt");
}

TEST(DbErrors, DatabaseOfAnotherProgramIsRefused) {
  TempDir dir;
  const std::string path = dir.file("photos.sqlite");
  write_with_sqlite(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, file TEXT);"
                          "INSERT INTO photos (file) VALUES ('cat.jpg');");
  expect_rejected_unchanged(dir, path, "SQLite database of another program");
}

TEST(DbErrors, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  write_with_sqlite(path, "PRAGMA application_id = 1129067092; PRAGMA user_version = 99;"
                          "CREATE TABLE runs (id INTEGER PRIMARY KEY);");
  expect_rejected_unchanged(
      dir, path,
      "was written by a newer cuda-l2-tune (schema 99, this build reads up to " + std::to_string(kSchemaVersion) + "); upgrade "
      "cuda-l2-tune or pick another --db path");
}

TEST(DbErrors, ReadOnlyNeedsAnExistingTuningDatabase) {
  TempDir dir;
  const std::string missing = dir.file("missing.sqlite");
  expect_user_error(missing, DbMode::ReadOnly,
                    "no such tuning database; run `cuda-l2-tune tune` first or pass --db an existing one");
  EXPECT_FALSE(fs::exists(missing));

  const std::string empty = dir.file("empty.sqlite");
  write_bytes(empty, "");
  expect_user_error(empty, DbMode::ReadOnly, "holds schema 0");
  EXPECT_EQ(read_bytes(empty), "");
}

TEST(DbErrors, FolderIsNotADatabaseFile) {
  TempDir dir;
  expect_user_error(dir.path().string(), DbMode::ReadWrite, "is a folder");
}

TEST(DbErrors, ParentThatIsAFileCannotHoldTheDatabase) {
  TempDir dir;
  const std::string plain = dir.file("plain");
  write_bytes(plain, "x");
  const std::string path = plain + "/sub/x.sqlite";
  expect_user_error(path, DbMode::ReadWrite, "cannot create the database");
  expect_user_error(plain + "/x.sqlite", DbMode::ReadWrite,
                    "cannot create the database (" + plain + " is not a folder)");
  EXPECT_EQ(read_bytes(plain), "x");
}

TEST(DbErrors, UnwritableFolderIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders; covered above";
  TempDir dir;
  const fs::path locked = dir.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string path = (locked / "db/x.sqlite").string();
  expect_user_error(path, DbMode::ReadWrite, "cannot create the database (permission denied)");
  expect_user_error((locked / "x.sqlite").string(), DbMode::ReadWrite,
                    "cannot create the database (permission denied); choose a writable --db path");
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_TRUE(fs::is_empty(locked));
}

TEST(DbErrors, ReadOnlyFileOpensOnlyForReading) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only files";
  TempDir dir;
  const std::string path = dir.file("shared.sqlite");
  TuningDb::open(path, DbMode::ReadWrite);
  fs::permissions(path, fs::perms::owner_read);
  const std::string before = read_bytes(path);
  expect_user_error(path, DbMode::ReadWrite,
                    "cannot write the database (permission denied); choose a writable --db path");
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(TuningDb::open(path, DbMode::ReadOnly)->schema_version(), kSchemaVersion);
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);  // a shared copy
  EXPECT_EQ(TuningDb::open(path, DbMode::ReadOnly)->summary().runs, 0);
  fs::permissions(dir.path(), fs::perms::owner_all);
  EXPECT_EQ(read_bytes(path), before);
}
