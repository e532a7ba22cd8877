// Bundles and headers for the runtime library, without a GPU: the table made from a database's
// rows, a bundle written and read back, a bundle that is damaged in each way it can be, a folder
// that is not a bundle, an export that fails midway, the generated header, and the choice of a
// GPU's table.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "db_test_support.hpp"
#include "runtime/bundle.hpp"
#include "runtime/cpp_export.hpp"
#include "runtime/runtime_error.hpp"
#include "runtime/runtime_open.hpp"
#include "support/one_winner_db.hpp"
#include "support/run_tool.hpp"
#include "support/runtime_fixtures.hpp"
#include "support/runtime_fixtures.hpp"

using namespace cl2;
using namespace cl2::test;
using cl2_test::entry;
using cl2_test::lt_algo;
using cl2_test::tn;

namespace {

// Three entries, two of them sharing one kernel (they differ only in where they were tuned).
DispatchTable sample_table() {
  DispatchTable table;
  table.device = test_device();
  const KernelConfig a{"sm90", {{"BM", 128}, {"BN", 256}}}, b{"sm90", {{"BM", 64}, {"BN", 64}}};
  table.entries.push_back(entry(tn(4096, 4096, 4096), a, 200, 190, lt_algo()));
  table.entries.push_back(entry(tn(2048, 4096, 4096), a, 110, 120));
  table.entries.push_back(entry(tn(64, 4096, 4096), b, 20, kNotMeasured));
  return table;
}

BundleKernel fake_kernel(const DispatchEntry& e) {
  return {"cubin of " + e.kernel_key() + std::string("\0\x7f\xff", 3), "// source of " + e.kernel_key()};
}

Bundle sample_bundle() { return make_bundle(sample_table(), fake_kernel); }

RuntimeError read_error(const std::filesystem::path& dir) {
  try {
    read_bundle(dir);
  } catch (const RuntimeError& e) {
    return e;
  }
  ADD_FAILURE() << dir << " was read";
  return {CL2_SUCCESS, ""};
}

}  // namespace

TEST(RuntimeBundle, TablesFromWinnerRowsOnePerGpuWarmFirst) {
  auto row = [](const DeviceInfo& device, Problem problem, const std::string& hash) {
    WinnerRow r;
    r.device = device;
    r.winner.problem = problem;
    r.winner.time_us = 10;
    r.kernel = test_kernel(128);
    r.kernel.source_hash = hash;
    return r;
  };
  const Problem p = tn(1024, 1024, 1024);
  const auto tables = dispatch_tables({row(test_device(), under(p, L2Policy::Rotate), "rotate"),
                                       row(test_device(), p, "warm"),
                                       row(test_device(), tn(64, 64, 64), "other"),
                                       row(test_device("NVIDIA H100"), p, "h100")});
  ASSERT_EQ(tables.size(), 2u);
  ASSERT_EQ(tables[0].entries.size(), 2u);
  EXPECT_EQ(tables[0].entries[0].source_hash, "warm") << "the warm winner replaces the rotate one";
  EXPECT_EQ(tables[0].entries[1].source_hash, "other");
  EXPECT_EQ(tables[1].device.name, "NVIDIA H100");
}

// The fits the database keeps for the GPU travel in the table (bundles, headers); a table written
// before them reads as having none.
TEST(RuntimeBundle, CalibrationsTravelWithTheTable) {
  DispatchTable table = sample_table();
  table.calibrations = {{table.device.name, "sm90", {{"BN >= 64", 0.9}}, 1.1, 300, "2026-12-05T00:00:00Z"},
                        {table.device.name, "sm80", {}, std::nullopt, 20, "2026-12-05T00:00:00Z"}};
  const DispatchTable read = table_from_json(table_to_json(table));
  ASSERT_EQ(read.calibrations.size(), 2u);
  EXPECT_EQ(read.calibrations[0].factors, table.calibrations[0].factors);
  EXPECT_EQ(read.calibrations[0].scale, 1.1);
  EXPECT_FALSE(read.calibrations[1].scale.has_value());
  EXPECT_EQ(table_to_json(read), table_to_json(table));
  nlohmann::json older = table_to_json(table);
  older.erase("calibrations");
  EXPECT_TRUE(table_from_json(older).calibrations.empty());
}

TEST(RuntimeBundle, WrittenAndReadBack) {
  TempDir dir;
  int asked = 0;
  const Bundle bundle = make_bundle(sample_table(), [&](const DispatchEntry& e) {
    ++asked;
    return fake_kernel(e);
  });
  EXPECT_EQ(asked, 2) << "each distinct kernel once";
  const auto path = dir.path() / "bundle";
  write_bundle(bundle, path);
  EXPECT_TRUE(std::filesystem::exists(path / "kernels" / (sample_table().entries[2].kernel_key() + ".cu")));
  const Bundle read = read_bundle(path);
  EXPECT_EQ(table_to_json(read.table), table_to_json(bundle.table));
  ASSERT_EQ(read.kernels.size(), 2u);
  for (const auto& [key, kernel] : bundle.kernels) EXPECT_EQ(read.kernels.at(key).cubin, kernel.cubin);
  EXPECT_EQ(read.table.entries[0].library_algo, lt_algo());
  EXPECT_TRUE(std::isnan(read.table.entries[2].library_us));
  // Written again over itself: replaced whole.
  write_bundle(make_bundle(sample_table(), fake_kernel), path);
  EXPECT_EQ(read_bundle(path).kernels.size(), 2u);
}

TEST(RuntimeBundle, DamagedBundlesAreOneLineErrors) {
  TempDir dir;
  const auto path = dir.path() / "bundle";
  const Bundle bundle = sample_bundle();
  const std::string key = sample_table().entries[0].kernel_key();
  const std::string manifest = bundle_manifest(bundle);
  auto fresh = [&] {
    std::filesystem::remove_all(path);
    write_bundle(bundle, path);
  };
  auto expect = [&](const std::string& needle) {
    const RuntimeError e = read_error(path);
    EXPECT_EQ(e.status, CL2_ERROR_BAD_INPUT_FILE);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  };

  fresh();
  write_bytes((path / "table.json").string(), manifest.substr(0, manifest.size() / 2));
  expect("table.json: malformed");
  fresh();
  write_bytes((path / "kernels" / (key + ".cubin")).string(), "truncated");
  expect("is damaged");
  fresh();
  std::filesystem::remove(path / "kernels" / (key + ".cubin"));
  expect("cannot read kernels/" + key + ".cubin");
  fresh();
  std::filesystem::remove(path / "table.json");
  expect("table.json: cannot read it");

  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    fresh();
    nlohmann::json json = nlohmann::json::parse(manifest);
    edit(json);
    write_bytes((path / "table.json").string(), json.dump());
  };
  edited([](nlohmann::json& j) { j["format"] = "something-else"; });
  expect("not a cl2 bundle");
  edited([](nlohmann::json& j) { j["version"] = 99; });
  expect("bundle version 99 is newer");
  edited([&](nlohmann::json& j) { j["kernels"].erase(key); });
  expect("kernel " + key + " of 4096x4096x4096 tn f32 is missing");
  edited([&](nlohmann::json& j) { j["kernels"][key]["cubin"] = "../../etc/passwd"; });
  expect("cannot read ../../etc/passwd");
  edited([&](nlohmann::json& j) { j["table"]["entries"][0]["layout"] = "tt"; });
  expect("malformed");
  edited([&](nlohmann::json& j) { j["table"]["entries"][0].erase("m"); });
  expect("malformed");
}

TEST(RuntimeBundle, NeverReplacesAFolderThatIsNotABundle) {
  TempDir dir;
  write_bytes(dir.file("notes.txt"), "mine");
  try {
    write_bundle(sample_bundle(), dir.path());
    ADD_FAILURE() << "replaced a folder that is not a bundle";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("exists and is not a bundle"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(dir.file("notes.txt")), "mine");
}

TEST(RuntimeBundle, AFolderWrittenHalfwayIsNeverLeftBehind) {
  TempDir dir;
  const auto path = dir.path() / "bundle";
  auto failing = [](const std::filesystem::path& into) {
    write_bytes((into / "table.json").string(), "{}");
    throw UserError("compile failed");
  };
  EXPECT_THROW(write_directory_atomically(path, failing, "fix"), UserError);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "no temporary folder left";
  // Over an existing bundle: the old one stays as it was.
  write_bundle(sample_bundle(), path);
  const std::string before = read_bytes((path / "table.json").string());
  EXPECT_THROW(write_directory_atomically(path, failing, "fix"), UserError);
  EXPECT_EQ(read_bytes((path / "table.json").string()), before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(RuntimeBundle, HeaderCarriesTheManifestAndCubins) {
  cl2_test::ScratchDir dir;
  const Bundle bundle = sample_bundle();
  const std::string header = dir.write("tuned.h", render_cpp_header(bundle));
  // A program that prints what the header holds, as cl2_open_embedded would read it.
  const std::string program = dir.write("main.cpp", R"(
#include <cstdio>
#include <cstring>
#include "tuned.h"
int main() {
  std::fwrite(cl2_tuned_bundle.table_json, 1, cl2_tuned_bundle.table_json_bytes, stdout);
  for (size_t i = 0; i < cl2_tuned_bundle.kernel_count; ++i)
    std::printf("\n%s %zu", cl2_tuned_bundle.kernels[i].key, cl2_tuned_bundle.kernels[i].cubin_bytes);
})");
  const auto built = cl2_test::run_command("c++ -std=c++17 -I" + cl2_test::source_path("include") + " -I" +
                                               dir.path().string() + " " + program + " -o " + dir.file("main"),
                                           dir);
  ASSERT_EQ(built.status, 0) << built.err;
  const auto ran = cl2_test::run_command(dir.file("main"), dir);
  ASSERT_EQ(ran.status, 0);
  std::string expected = bundle_manifest(bundle);
  for (const auto& [key, kernel] : bundle.kernels) expected += "\n" + key + " " + std::to_string(kernel.cubin.size());
  EXPECT_EQ(ran.out, expected);
}

// Each kernel's bias twin travels with it where the export has one (a winner whose twin does not
// compile goes without), and a runtime opened on the bundle finds it by the twin's key.
TEST(RuntimeBundle, BiasTwinsTravelWithTheirKernels) {
  TempDir dir;
  const DispatchTable table = sample_table();
  const Bundle bundle = make_bundle(table, fake_kernel, [&](const DispatchEntry& e) -> std::optional<BundleKernel> {
    if (e.kernel_key() == table.entries[2].kernel_key()) return std::nullopt;  // did not compile
    return BundleKernel{"twin of " + e.kernel_key(), "// twin source"};
  });
  ASSERT_EQ(bundle.kernels.size(), 3u);
  write_bundle(bundle, dir.path() / "bundle");
  const RuntimeInput input = read_runtime_input((dir.path() / "bundle").string(), dir.file("cache"), "cl2_open");
  EXPECT_EQ(input.cubins->bias_cubin(table.entries[0]), "twin of " + table.entries[0].kernel_key());
  EXPECT_EQ(input.cubins->bias_cubin(table.entries[1]), "twin of " + table.entries[1].kernel_key()) << "shared";
  EXPECT_EQ(input.cubins->bias_cubin(table.entries[2]), std::nullopt);
  EXPECT_EQ(input.cubins->cubin(table.entries[2]), fake_kernel(table.entries[2]).cubin);
}

// export --format bundle compiles each winner's bias twin beside it (no GPU needed).
TEST(RuntimeBundle, ExportWritesEachWinnersBiasTwin) {
  cl2_test::ScratchDir dir;
  const Problem tuned = tn(512, 512, 512);
  write_one_winner_db(dir.file("one.sqlite"), tuned,
                      cl2_test::sm90_config(tuned, cl2_test::any_config), test_device());
  const auto r = cl2_test::run_tool("export --db " + dir.file("one.sqlite") + " --format bundle -o " + dir.file("b"), dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const Bundle bundle = read_bundle(dir.path() / "b");
  ASSERT_EQ(bundle.table.entries.size(), 1u);
  const DispatchEntry& winner = bundle.table.entries[0];
  ASSERT_TRUE(bundle.kernels.contains(winner.bias_twin_key()));
  EXPECT_NE(bundle.kernels.at(winner.bias_twin_key()).cubin, bundle.kernels.at(winner.kernel_key()).cubin);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "b" / "kernels" / (winner.bias_twin_key() + ".cu")));
}

TEST(RuntimeBundle, EmbeddedBundleReadsLikeAFolder) {
  const Bundle bundle = sample_bundle();
  const std::string manifest = bundle_manifest(bundle);
  std::vector<cl2_embedded_kernel> kernels;
  for (const auto& [key, kernel] : bundle.kernels)
    kernels.push_back({key.c_str(), reinterpret_cast<const unsigned char*>(kernel.cubin.data()), kernel.cubin.size()});
  const cl2_embedded_bundle embedded{manifest.c_str(), manifest.size(), kernels.data(), kernels.size()};
  const RuntimeInput input = read_embedded_input(embedded);
  ASSERT_EQ(input.tables.size(), 1u);
  EXPECT_EQ(table_to_json(input.tables[0]), table_to_json(bundle.table));
  const DispatchEntry& small = bundle.table.entries[2];
  EXPECT_EQ(input.cubins->cubin(small), bundle.kernels.at(small.kernel_key()).cubin);
  kernels.pop_back();
  const cl2_embedded_bundle short_one{manifest.c_str(), manifest.size(), kernels.data(), kernels.size()};
  EXPECT_THROW(read_embedded_input(short_one), RuntimeError);
}

TEST(RuntimeBundle, TheTableOfThisGpuOrAnErrorOrTheLibrary) {
  const DispatchTable table = sample_table();
  const TableChoice same = table_for_device({table}, test_device(), false, "b");
  EXPECT_FALSE(same.library_only);
  EXPECT_EQ(same.table.entries.size(), 3u);
  try {
    table_for_device({table}, test_device("NVIDIA A100"), false, "b");
    ADD_FAILURE() << "an H200 table opened on an A100";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.status, CL2_ERROR_DEVICE_MISMATCH);
    EXPECT_NE(std::string(e.what()).find("b: tuned on NVIDIA H200 (sm_90), not on this NVIDIA A100"),
              std::string::npos)
        << e.what();
  }
  DeviceInfo other_arch = test_device();
  other_arch.cc_minor = 9;  // same name, other architecture: its cubins would not load
  EXPECT_THROW(table_for_device({table}, other_arch, false, "b"), RuntimeError);
  const TableChoice fallback = table_for_device({table}, test_device("NVIDIA A100"), true, "b");
  EXPECT_TRUE(fallback.library_only);
  EXPECT_TRUE(fallback.table.entries.empty());
  EXPECT_NE(fallback.warning.find("every GEMM goes to cuBLASLt"), std::string::npos);
  try {
    table_for_device({}, test_device(), false, "empty.sqlite");
    ADD_FAILURE() << "opened a database with no winners";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.status, CL2_ERROR_BAD_INPUT_FILE);
  }
}

TEST(RuntimeBundle, ExportCommandNeedsAnOutputAndWinners) {
  cl2_test::ScratchDir dir;
  auto r = cl2_test::run_tool("export --db " + dir.file("none.sqlite") + " --format bundle", dir);
  EXPECT_EQ(r.status, 2);
  CL2_EXPECT_CONTAINS(r.err, "--format bundle needs -o DIR");
  r = cl2_test::run_tool("export --db " + dir.file("none.sqlite") + " --format cpp", dir);
  EXPECT_EQ(r.status, 2);
  CL2_EXPECT_CONTAINS(r.err, "--format cpp needs -o FILE.h");
  { auto db = TuningDb::open(dir.file("empty.sqlite"), DbMode::ReadWrite); }
  r = cl2_test::run_tool("export --db " + dir.file("empty.sqlite") + " --format bundle -o " + dir.file("b"), dir);
  EXPECT_EQ(r.status, 2);
  CL2_EXPECT_CONTAINS(r.err, "no winners; tune first");
  EXPECT_FALSE(std::filesystem::exists(dir.file("b")));
  WinnerDb two_gpus;
  two_gpus.add_winner();
  const std::int64_t h100 = two_gpus.db->upsert_device(test_device("NVIDIA H100"));
  WinnerRecord other = test_winner(two_gpus.problem, 60, 50, 50, 50);
  other.device_id = h100;
  other.run_id = two_gpus.run;
  other.kernel_id = two_gpus.db->upsert_kernel(test_kernel(64));
  other.trial_id = two_gpus.db->insert_trial(ok_trial(two_gpus.run, h100, other.kernel_id, two_gpus.problem, 60));
  two_gpus.db->put_winner(other);
  r = cl2_test::run_tool("export --db " + two_gpus.path + " --format bundle -o " + dir.file("b"), dir);
  EXPECT_EQ(r.status, 2);
  CL2_EXPECT_CONTAINS(r.err, "holds winners of 2 GPUs (NVIDIA H100, NVIDIA H200); a bundle is for one");
}
