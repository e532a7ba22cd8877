#pragma once
// Which of a database's devices a GPU measured now is: for the commands that read a GPU's tuning
// results back (bench, profile).
#include <cstdint>
#include <optional>

#include "db/tuning_db.hpp"

namespace cl2 {

// The database's id for the device of `device`'s fingerprint (the row tune writes its results
// under), if it has one.
std::optional<std::int64_t> device_with_fingerprint(const TuningDb& db, const DeviceInfo& device);

// The database's id for `device`: the same fingerprint, else the same name (a driver update
// between tuning and measuring again should not hide the winners). Throws UserError naming the
// database and the fix where it has no results for that GPU.
std::int64_t device_in_db(const TuningDb& db, const DeviceInfo& device);

}  // namespace cl2
