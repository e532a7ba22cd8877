#pragma once
// What the runtime library dispatches from: per tuned shape of one GPU, the winning kernel and
// the fastest cuBLASLt algorithm timed beside it. Made from a tuning database's best-kernel rows,
// and written to (and read from) a bundle's table.json or a generated header as JSON.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device_info.hpp"
#include "core/kernel_config.hpp"
#include "core/lt_algo_config.hpp"
#include "core/problem.hpp"
#include "db/records.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {

struct DispatchEntry {
  Problem problem;  // the L2 policy it was tuned under
  KernelConfig config;
  std::string source_hash;  // the generated source's hash: the kernel's identity
  std::string arch;         // "sm_90a"
  double ours_us = kNotMeasured;
  // cuBLASLt-autotune's time in the winner's final round and its algorithm, where recorded.
  double library_us = kNotMeasured;
  std::optional<LtAlgoConfig> library_algo;

  // The cubin's name in a bundle: configurations with the same generated source share a cubin,
  // e.g. those differing only in the raster group; split-K is a kernel argument too, but some
  // defines depend on it (sm90: whether to split at all, the reduction's slices on small tiles).
  std::string kernel_key() const { return source_hash + "-" + arch; }
  // Its bias twin's (codegen Epilogue::Bias): in a bundle, and among the runtime's loaded modules.
  std::string bias_twin_key() const { return kernel_key() + "-bias"; }
  // Best of both: the recorded cuBLASLt algorithm measured faster than our winner.
  bool library_faster() const { return library_algo && library_us < ours_us; }
};

struct DispatchTable {
  DeviceInfo device;
  std::vector<DispatchEntry> entries;
  // The families' cost-model fits the database keeps for this GPU (`calibrate --store`): the
  // runtime ranks nearest winners with them, as tune plans with them.
  std::vector<CalibrationRecord> calibrations;
};

// One table per device of `rows` (TuningDb::winner_rows order), one entry per shape, layout and
// accumulator: where a shape was tuned under several L2 policies, the warm one (a GEMM called in
// a loop), else the first.
std::vector<DispatchTable> dispatch_tables(const std::vector<WinnerRow>& rows);
// The same from a database's winners (devices whose name contains `device_filter`, if given), with
// the calibrations it keeps for each GPU.
std::vector<DispatchTable> dispatch_tables(const TuningDb& db, const std::string& device_filter = "");

// The table as JSON: {"device": {...}, "entries": [{"m", "n", "k", "layout", "accum", "l2",
// "config", "source_hash", "arch", "ours_us", "library_us", "library_algo"}, ...], "calibrations":
// [{"family", "factors": [[rule, factor], ...], "scale", "trials", "fitted_at"}, ...]} (a table
// without "calibrations", as bundles written before them, reads as none).
nlohmann::json table_to_json(const DispatchTable& table);
// Throws nlohmann::json::exception (or UserError for an unknown spelling) on a malformed document.
DispatchTable table_from_json(const nlohmann::json& json);

}  // namespace cl2
